"""What management commands check in their arguments before they do any work: a file to read, a
file to write, a number in its range. Each refusal is one line (a CommandError: a message and an
exit status), never a traceback, and comes before anything is written, queued or charged."""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from django.core.management.base import CommandError

Number = TypeVar("Number", int, float)


def _named(option: str, message: str) -> str:
    return f"{option}: {message}" if option else message


def file_to_read(path: Path, *, option: str = "") -> Path:
    """`path` when it is an existing regular file this process may read; otherwise the command
    ends saying which of those it is not (`option` names the argument, if it has a name)."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise CommandError(_named(option, f"{path}: no such file.")) from None
    except OSError as exc:
        raise CommandError(_named(option, f"{path}: {exc.strerror or exc}.")) from None
    if stat.S_ISDIR(mode):
        raise CommandError(_named(option, f"{path} is a directory, not a file."))
    if not stat.S_ISREG(mode):
        raise CommandError(_named(option, f"{path} is not a regular file."))
    if not os.access(path, os.R_OK):
        raise CommandError(_named(option, f"{path}: permission denied."))
    return path


def text_file_read(path: Path, *, option: str = "") -> str:
    """The text of `path` (a readable file, UTF-8, a byte-order mark dropped); a file that is
    not UTF-8 ends the command naming the first bad byte."""
    data = file_to_read(path, option=option).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CommandError(
            _named(option, f"{path} is not UTF-8 text (byte {exc.start + 1} is not).")
        ) from None


def file_to_write(path: Path, *, option: str) -> Path:
    """`path` when a file can be written there: it is a regular file or nothing yet, in an
    existing folder this process may write to. Checked before the work, so that a long export
    or study does not end on a path it could never write."""
    if path.is_dir():
        raise CommandError(f"{option}: {path} is a directory; name a file in it.")
    if path.exists() and not path.is_file():
        raise CommandError(f"{option}: {path} is not a regular file.")
    folder = path.parent
    if not folder.is_dir():
        raise CommandError(f"{option}: no folder {folder} to write {path.name} in.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CommandError(f"{option}: cannot write in {folder} (permission denied).")
    return path


def file_write(path: Path, chunks: Iterable[str], *, option: str) -> None:
    """Write `chunks` (UTF-8, "\\n" line ends) to `path`, whole or not at all.

    They go to a hidden file beside `path`, renamed over it once complete: a failed write (a
    full disk) leaves what was at `path` before, no partial export, and ends the command with
    one line."""
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    try:
        # os.open with 0o666, as open() does: the new file's mode follows the umask.
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with open(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            for chunk in chunks:
                handle.write(chunk)
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise CommandError(
            f"{option}: cannot write {path}: {exc.strerror or exc}; nothing was written."
        ) from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def number_in_range(value: Number, *, option: str, low: Number, high: Number) -> Number:
    """`value` when `low` ≤ value ≤ `high` (NaN never is); otherwise the command ends naming
    the range."""
    if not low <= value <= high:
        raise CommandError(f"{option} must be {low:,} … {high:,}; {value} is not.")
    return value
