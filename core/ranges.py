"""One byte range of a stored download (RFC 9110 §14), so that a large release archive whose
download broke off can be resumed where it stopped instead of fetched again from the start.

One range only: a request for several (`bytes=0-9,20-29`) is answered with the whole file, as
the RFC allows, rather than a multipart body no download tool asks for. So is a malformed or
inverted range, and an `If-Range` whose validator is not the file's current one.
"""

from __future__ import annotations

import re
from typing import IO

# 18 digits: bounds a number that int() would otherwise read at any length.
_ONE_RANGE = re.compile(r"bytes=([0-9]{0,18})-([0-9]{0,18})")


class RangeNotSatisfiable(Exception):
    """The range starts past the end of the file (a 416)."""


def requested_range(
    header: str | None, size: int, *, if_range: str | None = None, etag: str | None = None
) -> tuple[int, int] | None:
    """(first, last) byte of the one range asked for, within a file of `size` bytes; None when
    the whole file is to be sent."""
    if not header or (if_range is not None and if_range != etag):
        return None
    found = _ONE_RANGE.fullmatch(header.strip())
    if found is None or found.group(1) == found.group(2) == "":
        return None
    first_text, last_text = found.groups()
    if first_text == "":  # "bytes=-N": the last N bytes
        wanted = int(last_text)
        if wanted == 0 or size == 0:
            raise RangeNotSatisfiable
        return max(size - wanted, 0), size - 1
    first = int(first_text)
    last = int(last_text) if last_text else size - 1
    if last_text and last < first:
        return None  # inverted: not a range at all
    if first >= size:
        raise RangeNotSatisfiable
    return first, min(last, size - 1)


class BoundedReader:
    """Reads at most `length` bytes of `file` from where it stands; no tell() or seek(), so a
    FileResponse takes the Content-Length it is given rather than measuring to the end."""

    def __init__(self, file: IO[bytes], length: int) -> None:
        self.file, self.left = file, length

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        chunk = self.file.read(size) if size else b""
        self.left -= len(chunk)
        return chunk

    def close(self) -> None:
        self.file.close()
