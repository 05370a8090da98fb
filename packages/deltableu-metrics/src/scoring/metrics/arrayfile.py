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

import errno
import hashlib
import json
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable, Mapping, Sequence
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


def _header_bytes(layout: dict[str, Any], size: int, sha256: str, meta: Any) -> bytes:
    body = {"arrays": layout, "data_size": size, "sha256": sha256, "meta": meta}
    return json.dumps(body).encode("utf-8")


def target_problem(path: str | Path) -> str | None:
    """Why an array file may not be written at ``path``, or None (no file, or a regular one).

    The file is renamed over ``path``, which would replace a symbolic link (not the file it
    points to), a FIFO or a device with a regular file; as root, ``/dev/full`` became one. A
    symbolic link is refused rather than followed: writing through it lets whoever made the
    link choose which file is replaced (a link planted in a shared folder)."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there (the folder: the caller's)
        return None
    if stat.S_ISLNK(mode):
        return "is a symbolic link, not a regular file (give the file it points to)"
    if stat.S_ISDIR(mode):
        return "is a directory"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a FIFO, a device or a socket)"
    return None


def _check_target(path: Path) -> None:
    problem = target_problem(path)
    if problem is not None:
        raise FileExistsError(errno.EEXIST, f"not replaced: it {problem}", str(path))


def _new_file_beside(path: Path) -> tuple[int, Path]:
    """A new, empty file in ``path``'s folder, open for writing. Unlike mkstemp's (0600) its
    mode is any new file's, 0666 less the umask, so that an index is as readable as its user's
    other files (a worker under another account reads it)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(path.parent))


def _write_atomically(path: Path, header: bytes, write_data: Callable[[Any], None]) -> None:
    """Magic, header and padding, then ``write_data(fh)``, to a temporary file in the same
    folder, flushed to disk and renamed over ``path``: a reader sees the old file or the new
    one, never a partial one. ``path`` must be a regular file or nothing (see
    :func:`target_problem`)."""
    _check_target(path)
    start = _padded(len(MAGIC) + 8 + len(header))
    fd, tmp = _new_file_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC + len(header).to_bytes(8, "little") + header)
            fh.write(bytes(start - fh.tell()))
            write_data(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_arrays(path: str | Path, arrays: Mapping[str, np.ndarray], meta: Any) -> None:
    """Write ``arrays`` and the JSON-able ``meta`` to ``path`` atomically (see
    :func:`_write_atomically`)."""
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

    def write_data(fh: Any) -> None:
        for data in prepared.values():
            fh.write(data.data.cast("B"))
            fh.write(bytes(_padded(data.nbytes) - data.nbytes))

    _write_atomically(
        Path(path), _header_bytes(layout, offset, digest.hexdigest(), meta), write_data
    )


class ArrayWriter:
    """An array file written piece by piece: the same file :func:`write_arrays` writes for the
    concatenated pieces, without ever holding a whole array.

    ``specs`` names every array (in file order) with its dtype; :meth:`append` adds a 1-D piece
    to one of them (in any order of arrays); :meth:`finish` writes the file atomically. Pieces
    wait in one spool file per array in a temporary folder beside ``path`` (the final layout
    needs every array's size before the first byte of data), removed by :meth:`close`. Use as
    a context manager: an error leaves neither the spools nor a partial file behind.
    """

    def __init__(self, path: str | Path, specs: Sequence[tuple[str, Any]]):
        self.path = Path(path)
        _check_target(self.path)  # before the work, not only when the file is renamed over it
        self.dtypes = {name: np.dtype(dtype).newbyteorder("<") for name, dtype in specs}
        for name, dtype in self.dtypes.items():
            if dtype.kind not in _NUMERIC_KINDS:
                raise TypeError(f"array {name!r}: dtype {dtype} is not numeric")
        self.folder = Path(tempfile.mkdtemp(dir=self.path.parent, prefix=f".{self.path.name}."))
        self.sizes = dict.fromkeys(self.dtypes, 0)
        self.spools = {
            name: (self.folder / f"{k}.part").open("wb") for k, name in enumerate(self.dtypes)
        }

    def append(self, name: str, piece: np.ndarray) -> None:
        """Add ``piece`` (1-D, of the declared dtype: refused rather than converted, so a
        piece never differs from what a whole build would store) to the end of ``name``."""
        data = np.ascontiguousarray(piece)
        if data.ndim != 1 or data.dtype.newbyteorder("<") != self.dtypes[name]:
            raise TypeError(
                f"array {name!r}: piece {data.dtype}{data.shape} is not 1-D {self.dtypes[name]}"
            )
        data = data.astype(self.dtypes[name], copy=False)
        self.spools[name].write(data.data.cast("B"))
        self.sizes[name] += len(data)

    def finish(self, meta: Any) -> None:
        """Write the file (header, offsets and checksum of every array) and close."""
        layout: dict[str, dict[str, Any]] = {}
        offset = 0
        for name, dtype in self.dtypes.items():
            self.spools[name].close()
            layout[name] = {"dtype": dtype.str, "shape": [self.sizes[name]], "offset": offset}
            offset = _padded(offset + self.sizes[name] * dtype.itemsize)
        digest = hashlib.sha256()
        self._copy_spools(digest.update)  # a first read for the checksum the header holds
        header = _header_bytes(layout, offset, digest.hexdigest(), meta)
        _write_atomically(self.path, header, lambda fh: self._copy_spools(fh.write))
        self.close()

    def _copy_spools(self, sink: Callable[[bytes], Any]) -> None:
        for k, (name, dtype) in enumerate(self.dtypes.items()):
            nbytes = self.sizes[name] * dtype.itemsize
            with (self.folder / f"{k}.part").open("rb") as fh:
                while block := fh.read(_HASH_BLOCK):
                    sink(block)
            sink(bytes(_padded(nbytes) - nbytes))

    def close(self) -> None:
        """Remove the spools (the written file, if any, stays)."""
        for spool in self.spools.values():
            spool.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> ArrayWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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

    def decode_all(self) -> list[str]:
        """Every string, decoded at once (for a vocabulary that is looked up often)."""
        blob = self.blob.tobytes()
        ends = self.ends.tolist()
        return [blob[a:b].decode("utf-8") for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def unpack_strings(prefix: str, arrays: Any) -> list[str]:
    """The strings stored by :func:`pack_strings` under ``prefix``, all decoded."""
    return PackedStrings(arrays[f"{prefix}.blob"], arrays[f"{prefix}.ends"]).decode_all()
