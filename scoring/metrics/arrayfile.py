"""A pickle-free file of named numeric arrays that processes memory-map instead of copying.

Layout: 8 magic bytes, the JSON header's length (8 bytes, little-endian), the JSON header, then
every array's raw bytes, each starting on a 64-byte boundary. The header names each array's
dtype (numeric kinds only: nothing in the file can describe an object), shape and offset, the
size of the data section and its SHA-256, plus whatever the caller stores under ``meta``.

Why not ``np.savez``: ``np.load`` ignores ``mmap_mode`` for an archive and copies every array
into the process. Why one file rather than a folder of ``.npy`` files: a single file is
replaced atomically (a temporary file renamed over it), so a process never maps a half-written
set. Arrays loaded with :func:`read_arrays` are read-only views of one shared mapping: several
processes reading the same file share its pages through the operating system's page cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"DBSARR\x00\x01"
_ALIGN = 64
_NUMERIC_KINDS = "biuf"  # booleans, integers, floats: never objects, strings or structs
_HASH_BLOCK = 1 << 20


class ArrayFileError(ValueError):
    """The file is not a complete, intact array file (truncated, garbled, another format)."""


def _padded(size: int) -> int:
    return -(-size // _ALIGN) * _ALIGN


def write_arrays(path: str | Path, arrays: Mapping[str, np.ndarray], meta: Any) -> None:
    """Write ``arrays`` and the JSON-able ``meta`` to ``path`` atomically.

    The content goes to a temporary file in the same folder, flushed to disk, then renamed over
    ``path``: a reader sees the old file or the new one, never a partial one.
    """
    path = Path(path)
    layout: dict[str, dict[str, Any]] = {}
    offset = 0
    prepared = {}
    for name, array in arrays.items():
        data = np.ascontiguousarray(array)
        if data.dtype.kind not in _NUMERIC_KINDS:
            raise TypeError(f"array {name!r}: dtype {data.dtype} is not numeric")
        data = data.astype(data.dtype.newbyteorder("<"), copy=False)
        layout[name] = {"dtype": data.dtype.str, "shape": list(data.shape), "offset": offset}
        prepared[name] = data
        offset = _padded(offset + data.nbytes)
    digest = hashlib.sha256()
    for data in prepared.values():
        digest.update(data.data.cast("B"))
        digest.update(bytes(_padded(data.nbytes) - data.nbytes))
    header = json.dumps(
        {"arrays": layout, "data_size": offset, "sha256": digest.hexdigest(), "meta": meta}
    ).encode("utf-8")
    start = _padded(len(MAGIC) + 8 + len(header))
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC + len(header).to_bytes(8, "little") + header)
            fh.write(bytes(start - fh.tell()))
            for data in prepared.values():
                fh.write(data.data.cast("B"))
                fh.write(bytes(_padded(data.nbytes) - data.nbytes))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_header(fh: Any, path: Path) -> tuple[dict[str, Any], int]:
    if fh.read(len(MAGIC)) != MAGIC:
        raise ArrayFileError(f"{path}: not an array file")
    size = int.from_bytes(fh.read(8), "little")
    if size > os.fstat(fh.fileno()).st_size:
        raise ArrayFileError(f"{path}: truncated header")
    try:
        header = json.loads(fh.read(size).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ArrayFileError(f"{path}: garbled header ({exc})") from exc
    if not isinstance(header, dict) or not isinstance(header.get("arrays"), dict):
        raise ArrayFileError(f"{path}: garbled header")
    return header, _padded(len(MAGIC) + 8 + size)


def _check_data(fh: Any, path: Path, header: dict[str, Any], start: int) -> None:
    """Size and SHA-256 of the data section: a truncated or garbled file is refused."""
    if os.fstat(fh.fileno()).st_size != start + int(header["data_size"]):
        raise ArrayFileError(f"{path}: truncated or padded (size does not match its header)")
    # Plain reads, not the mapping: hashing does not add the file to this process's memory.
    fh.seek(start)
    digest = hashlib.sha256()
    while block := fh.read(_HASH_BLOCK):
        digest.update(block)
    if digest.hexdigest() != header.get("sha256"):
        raise ArrayFileError(f"{path}: checksum mismatch (garbled data)")


def read_arrays(path: str | Path, verify: bool = True) -> tuple[dict[str, np.ndarray], Any]:
    """The arrays (read-only, memory-mapped) and the ``meta`` stored by :func:`write_arrays`.

    ``verify`` checks the data section's size and checksum first (one sequential read of the
    file). Raises :class:`ArrayFileError` for anything that is not an intact array file.
    """
    path = Path(path)
    with path.open("rb") as fh:
        header, start = _read_header(fh, path)
        if verify:
            _check_data(fh, path, header, start)
        elif os.fstat(fh.fileno()).st_size < start + int(header.get("data_size", 0)):
            raise ArrayFileError(f"{path}: truncated")
    whole = np.memmap(path, dtype=np.uint8, mode="r")
    arrays: dict[str, np.ndarray] = {}
    try:
        for name, spec in header["arrays"].items():
            dtype = np.dtype(spec["dtype"])
            if dtype.kind not in _NUMERIC_KINDS:
                raise ArrayFileError(f"{path}: array {name!r} is not numeric")
            shape = tuple(int(n) for n in spec["shape"])
            begin = start + int(spec["offset"])
            end = begin + dtype.itemsize * int(np.prod(shape, dtype=np.int64))
            if begin % _ALIGN or end > len(whole):
                raise ArrayFileError(f"{path}: array {name!r} lies outside the file")
            arrays[name] = whole[begin:end].view(dtype).reshape(shape)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, ArrayFileError):
            raise
        raise ArrayFileError(f"{path}: garbled header ({exc})") from exc
    return arrays, header.get("meta")


def pack_strings(prefix: str, strings: Sequence[str], out: dict[str, np.ndarray]) -> None:
    """Strings as one UTF-8 blob and their end offsets (no object arrays: no pickle)."""
    encoded = [text.encode("utf-8") for text in strings]
    out[f"{prefix}.blob"] = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    out[f"{prefix}.ends"] = np.cumsum([len(e) for e in encoded], dtype=np.int64)


class PackedStrings(Sequence[str]):
    """Strings stored as a UTF-8 blob and end offsets, decoded one by one when read.

    A loaded index keeps its references this way: over a memory-mapped file, a worker decodes
    only the texts it reads (a chunk's), never a million Python strings at once.
    """

    def __init__(self, blob: np.ndarray, ends: np.ndarray):
        self.blob, self.ends = blob, ends

    def __len__(self) -> int:
        return len(self.ends)

    def _one(self, k: int) -> str:
        a = int(self.ends[k - 1]) if k else 0
        return bytes(self.blob[a : int(self.ends[k])]).decode("utf-8")

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [self._one(j) for j in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        return self._one(k)


def unpack_strings(prefix: str, arrays: Any) -> list[str]:
    """The strings stored by :func:`pack_strings` under ``prefix``, all decoded."""
    blob = arrays[f"{prefix}.blob"].tobytes()
    ends = arrays[f"{prefix}.ends"].tolist()
    starts = [0, *ends[:-1]]
    return [blob[a:b].decode("utf-8") for a, b in zip(starts, ends, strict=True)]
