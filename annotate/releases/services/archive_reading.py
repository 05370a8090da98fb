"""Reading a release archive made anywhere, trusting nothing in it.

The archive must be one folder holding only a release's files (`files.FILE_NAMES`), each listed
in manifest.json with its SHA-256. Entries are inflated through `core.safezip` — limits on
total size, ratio, entry count and line length checked while they stream — into temporary
files, hashed on the way, so a large or hostile archive never sits in memory. Any damage is a
ValidationError: a garbled archive is bad input, not a server error.
"""

from __future__ import annotations

import hashlib
import tempfile
import zipfile
from collections.abc import Iterator
from typing import IO, Any

from django.core.exceptions import ValidationError

from annotate.releases.services.files import BINARY_FILES, FILE_NAMES, MANIFEST
from core import strict_json
from core.bounded import CHUNK_BYTES, MIB, Limits
from core.safezip import SafeZip

SPOOL_BYTES = 1 * MIB  # an entry larger than this is kept in a temporary file, not in memory
JSON_FILE_MAX_BYTES = 1 * MIB  # release.json and manifest.json are read whole: a few KB


def json_loads(text: str | bytes) -> Any:
    """Strict JSON (core.strict_json): no NaN, duplicate keys, NUL or deep nesting."""
    try:
        return strict_json.loads(text)
    except strict_json.StrictJSONError as exc:
        raise ValueError(exc.describe()) from None


class ArchiveFiles:
    """A release archive's files by bare name: their SHA-256 and their bytes (spooled)."""

    def __init__(self) -> None:
        self.digests: dict[str, str] = {}
        self._spools: dict[str, tempfile.SpooledTemporaryFile[bytes]] = {}

    def __enter__(self) -> ArchiveFiles:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for spool in self._spools.values():
            spool.close()

    def add(self, name: str, reader: IO[bytes]) -> None:
        # Closed by close(), with the others: it outlives this call.
        spool: tempfile.SpooledTemporaryFile[bytes] = tempfile.SpooledTemporaryFile(SPOOL_BYTES)  # noqa: SIM115
        self._spools[name] = spool
        digest = hashlib.sha256()
        for chunk in iter(lambda: reader.read(CHUNK_BYTES), b""):
            digest.update(chunk)
            spool.write(chunk)
        self.digests[name] = digest.hexdigest()

    def size(self, name: str) -> int:
        spool = self._spools[name]
        spool.seek(0, 2)
        return spool.tell()

    def lines(self, name: str) -> Iterator[tuple[int, str]]:
        """(line number, text) of a text file; its lines were bounded while it inflated."""
        spool = self._spools[name]
        spool.seek(0)
        for number, raw in enumerate(spool, start=1):
            yield number, _decoded(name, number, raw).rstrip("\n")

    def json(self, name: str) -> dict[str, Any]:
        if name not in self.digests:
            raise ValidationError(f"The archive has no {name}.")
        if self.size(name) > JSON_FILE_MAX_BYTES:
            raise ValidationError(f"{name} is larger than {JSON_FILE_MAX_BYTES:,} bytes.")
        spool = self._spools[name]
        spool.seek(0)
        try:
            value = json_loads(spool.read())
        except ValueError as exc:
            raise ValidationError(f"{name} is not valid JSON ({exc}).") from None
        if not isinstance(value, dict):
            raise ValidationError(f"{name} must hold a JSON object.")
        return value


def _decoded(name: str, number: int, raw: bytes) -> str:
    if b"\x00" in raw:  # no database text column stores it (as core.lines.read_lines says)
        raise ValidationError(f"{name}: line {number} contains a NUL byte.")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError(f"{name}: line {number} is not valid UTF-8.") from None


def _layout(infos: list[zipfile.ZipInfo]) -> list[tuple[zipfile.ZipInfo, str]]:
    """(entry, bare name) for each file; refused unless one folder holds only release files."""
    folders = {info.filename.split("/", 1)[0] for info in infos}
    if len(folders) > 1:
        raise ValidationError(f"The archive must hold one folder, not {len(folders)}.")
    entries = []
    for info in infos:
        parts = info.filename.split("/")
        if len(parts) != 2 or parts[1] not in FILE_NAMES:
            raise ValidationError(
                f"The archive must hold one folder with only a release's files; "
                f"{info.filename[:80]!r} is not one."
            )
        entries.append((info, parts[1]))
    if not entries:
        raise ValidationError("The archive holds no files.")
    return entries


def _check_manifest(files: ArchiveFiles) -> dict[str, Any]:
    manifest = files.json(MANIFEST)
    listing = manifest.get("files")
    if not isinstance(listing, list) or not all(
        isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("sha256"), str)
        for e in listing
    ):
        raise ValidationError("manifest.json must list files with a name and a sha256 each.")
    listed = {entry["name"]: entry["sha256"] for entry in listing}
    if len(listed) != len(listing) or set(listed) != set(files.digests) - {MANIFEST}:
        raise ValidationError("The archive's files do not match its manifest.")
    for name, digest in sorted(listed.items()):
        if files.digests[name] != digest:
            raise ValidationError(f"{name} does not match its SHA-256 in the manifest.")
    return manifest


def archive_read(source: IO[bytes]) -> ArchiveFiles:
    """The checked files of a release archive (use it with `with`, which drops them)."""
    files = ArchiveFiles()
    try:
        with SafeZip(source, label="The archive", limits=Limits.for_archives()) as archive:
            for info, name in _layout(archive.files):
                with archive.open(info, binary=name in BINARY_FILES) as reader:
                    files.add(name, reader)
        _check_manifest(files)
    except BaseException:
        files.close()
        raise
    return files
