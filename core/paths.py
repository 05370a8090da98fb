"""Names from untrusted input (archive entries, manifests) as paths confined under a root.

A name is accepted only as a plain relative POSIX path: no absolute path, no drive letter, no
backslash (a separator to Windows tools), no "." or ".." part, no empty part, no control
character. Checking the text is enough for storage names: they are never resolved through
symlinks, and FileSystemStorage resolves each path again and refuses one outside MEDIA_ROOT.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

MAX_NAME_LENGTH = 255
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def safe_relative(name: str, *, what: str = "A name") -> str:
    """`name` unchanged when it is a plain relative path, else ValidationError saying why."""
    problem = _problem(name)
    if problem:
        raise ValidationError(f"{what} {name[:80]!r} is refused: {problem}.")
    return name


def _problem(name: str) -> str:
    if not name or len(name) > MAX_NAME_LENGTH:
        return f"it must have 1 to {MAX_NAME_LENGTH} characters"
    if _CONTROL.search(name):
        return "it holds a control character"
    if "\\" in name:
        return "it holds a backslash"
    if name.startswith("/") or _DRIVE.match(name):
        return "it is an absolute path"
    if any(part in ("", ".", "..") for part in name.split("/")):
        return "it has an empty, '.' or '..' part"
    return ""


def storage_join(root: str, *parts: str) -> str:
    """A storage name under `root` (a trusted prefix), each part checked."""
    return "/".join([root.rstrip("/"), *(safe_relative(part) for part in parts)])
