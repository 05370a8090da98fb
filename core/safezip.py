"""An untrusted zip archive, its directory checked before a byte of it is inflated.

- The entry count and the central directory's size are read from the end record and refused
  over ARCHIVE_MAX_ENTRIES before `zipfile` parses the directory (100,000 entries would be
  100,000 objects in memory first).
- Every name is a plain relative path (`core.paths`), given once; only regular files and
  folders — no symlink, device or other special entry — stored or deflated, unencrypted.
- Declared sizes are checked against the limits up front, and the bytes actually inflated
  again while reading (`core.bounded`): the directory may lie, the stream cannot.
"""

from __future__ import annotations

import io
import stat
import struct
import zipfile
import zlib
from typing import IO

from django.core.exceptions import ValidationError

from core.bounded import RATIO_FLOOR_BYTES, BoundedStream, Budget, LimitExceeded, Limits, buffered
from core.paths import MAX_NAME_LENGTH, safe_relative

EOCD = struct.Struct("<4s4H2LH")  # end of central directory record
EOCD_SIGNATURE = b"PK\x05\x06"
ZIP64_LOCATOR = struct.Struct("<4sLQL")
ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")
MAX_COMMENT = 0xFFFF
# A directory entry is 46 bytes plus its name, extra fields and comment; this allows a full
# name and generous extras, so the directory's size bounds the number of entries too.
DIRECTORY_BYTES_PER_ENTRY = 46 + MAX_NAME_LENGTH + 1024
# bzip2 and LZMA inflate a whole block per call, with no cap on the output: not accepted.
METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
ZIP_DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError)
FILE_TYPES = (0, stat.S_IFREG, stat.S_IFDIR)  # 0: made where Unix modes are not recorded


def _end_record(raw: IO[bytes]) -> tuple[int, int]:
    """(entries, central directory bytes) from the end record, as zipfile will find it."""
    raw.seek(0, io.SEEK_END)
    size = raw.tell()
    window = min(size, EOCD.size + MAX_COMMENT)
    raw.seek(size - window)
    tail = raw.read(window)
    at = len(tail) - EOCD.size
    if not tail[at:].startswith(EOCD_SIGNATURE):  # not at the very end: there is a comment
        at = tail.rfind(EOCD_SIGNATURE, 0, max(at, 0))
    if at < 0:
        raise ValidationError("The file is not a zip archive.")
    fields = EOCD.unpack_from(tail, at)
    entries, directory = fields[4], fields[5]
    if entries == 0xFFFF or directory == 0xFFFFFFFF:
        entries, directory = _zip64_end_record(raw, tail, at)
    return entries, directory


def _zip64_end_record(raw: IO[bytes], tail: bytes, at: int) -> tuple[int, int]:
    start = at - ZIP64_LOCATOR.size
    locator = ZIP64_LOCATOR.unpack_from(tail, start) if start >= 0 else None
    if locator is None or locator[0] != b"PK\x06\x07":
        raise ValidationError("The zip archive's end record is damaged.")
    raw.seek(locator[2])
    record = raw.read(ZIP64_EOCD.size)
    if len(record) < ZIP64_EOCD.size or not record.startswith(b"PK\x06\x06"):
        raise ValidationError("The zip archive's end record is damaged.")
    fields = ZIP64_EOCD.unpack(record)
    return fields[7], fields[8]


class SafeZip:
    """The checked files of a zip archive (`files`); read one with `open`. Closes with `with`."""

    def __init__(self, raw: IO[bytes], *, label: str, limits: Limits) -> None:
        self.label, self.limits = label, limits
        self.budget = Budget(limits.inflated)
        entries, directory = _end_record(raw)
        self._check_count(entries, "has")
        self._check_count(-(-directory // DIRECTORY_BYTES_PER_ENTRY), "has a directory as big as")
        raw.seek(0)
        try:
            self.zip = zipfile.ZipFile(raw)
        except (*ZIP_DAMAGE, ValueError) as exc:
            raise ValidationError(f"{label} is not a readable zip archive ({exc}).") from None
        infos = self.zip.infolist()
        self._check_count(len(infos), "has")
        self.files = self._checked([info for info in infos if not info.is_dir()])
        for folder in (info for info in infos if info.is_dir()):
            safe_relative(folder.filename.rstrip("/"), what="An archive folder")

    def __enter__(self) -> SafeZip:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.zip.close()

    def _check_count(self, entries: int, verb: str) -> None:
        limit = self.limits.entries
        if limit is not None and entries > limit.value:
            raise LimitExceeded(limit, f"{self.label} {verb} {entries:,} entries")

    def _checked(self, infos: list[zipfile.ZipInfo]) -> list[zipfile.ZipInfo]:
        seen: set[str] = set()
        for info in infos:
            name = safe_relative(info.filename, what="An archive entry")
            if name in seen:
                raise ValidationError(f"{self.label} holds {name!r} twice.")
            seen.add(name)
            self._check_entry(info)
        declared = sum(info.file_size for info in infos)
        limit = self.limits.inflated
        if limit is not None and declared > limit.value:
            raise LimitExceeded(limit, f"{self.label} declares {declared:,} bytes inflated")
        return infos

    def _check_entry(self, info: zipfile.ZipInfo) -> None:
        name = info.filename
        if stat.S_IFMT(info.external_attr >> 16) not in FILE_TYPES:
            raise ValidationError(f"{name!r} is a symlink or special file, not a regular file.")
        if info.flag_bits & 0x1:
            raise ValidationError(f"{name!r} is encrypted.")
        if info.compress_type not in METHODS:
            raise ValidationError(f"{name!r} is compressed with an unsupported method.")
        ratio = self.limits.ratio
        big = info.file_size > RATIO_FLOOR_BYTES
        if ratio is not None and big and info.file_size > ratio.value * info.compress_size:
            raise LimitExceeded(ratio, f"{name!r} declares more than {ratio.value}:1")

    def open(self, info: zipfile.ZipInfo, *, binary: bool = False) -> io.BufferedReader:
        """The entry's inflated bytes, bounded (line cap off when `binary`)."""
        try:
            inner = self.zip.open(info)
        except ZIP_DAMAGE as exc:
            raise ValidationError(f"{info.filename!r} is damaged ({exc}).") from None
        stream = BoundedStream(
            inner,
            label=f"{self.label}: {info.filename}",
            limits=self.limits.without_lines() if binary else self.limits,
            budget=self.budget,
            compressed=lambda: info.compress_size,
            damage=ZIP_DAMAGE,
        )
        return buffered(stream)
