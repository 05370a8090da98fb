"""Hostile inputs built in memory in a fraction of a second: decompression bombs and odd zips.

A bomb of N zero bytes is one compressed megabyte of zeros repeated: after a full flush a
deflate block refers to nothing before it, so the same bytes again inflate to the same
megabyte again. The CRC is computed, so each bomb is a valid file, not just a damaged one.
Used by the tests and by bench/hostile.py.
"""

from __future__ import annotations

import io
import stat
import struct
import zipfile
import zlib

MIB = 1024 * 1024
GIB = 1024 * MIB
EMPTY_FINAL_BLOCK = b"\x03\x00"  # a last, empty, fixed-Huffman deflate block


def _gf2_times(matrix: list[int], vector: int) -> int:
    total, row = 0, 0
    while vector:
        if vector & 1:
            total ^= matrix[row]
        vector >>= 1
        row += 1
    return total


def _gf2_compose(a: list[int], b: list[int]) -> list[int]:
    return [_gf2_times(a, column) for column in b]


def _append_zeros(count: int) -> list[int]:
    """The 32x32 matrix over GF(2) taking a CRC-32 to that of its data followed by `count` zero
    bytes (zlib's crc32_combine, by squaring)."""
    operator = [0xEDB88320] + [1 << n for n in range(31)]  # one zero bit
    for _ in range(3):
        operator = _gf2_compose(operator, operator)  # one zero byte
    result = [1 << n for n in range(32)]  # identity
    while count:
        if count & 1:
            result = _gf2_compose(operator, result)
        operator = _gf2_compose(operator, operator)
        count >>= 1
    return result


def crc32_repeated(piece: bytes, times: int) -> int:
    """zlib.crc32(piece * times) without reading `times` pieces: CRC(A+B) is CRC(A) moved past
    len(B) zero bytes, xor CRC(B); pieces are appended by doubling."""
    crc, block, append = 0, zlib.crc32(piece), _append_zeros(len(piece))
    while times:
        if times & 1:
            crc = _gf2_times(append, crc) ^ block
        block = _gf2_times(append, block) ^ block
        append = _gf2_compose(append, append)
        times >>= 1
    return crc


def deflate_repeated(piece: bytes, times: int) -> tuple[bytes, int, int]:
    """Raw deflate of `piece` repeated `times` times: (compressed, crc32, inflated size)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(piece) + compressor.flush(zlib.Z_FULL_FLUSH)
    return block * times + EMPTY_FINAL_BLOCK, crc32_repeated(piece, times), len(piece) * times


def gzip_bomb(total: int = GIB, *, piece: bytes = b"\0" * MIB) -> bytes:
    """A gzip file inflating to `total` bytes (one line, when `piece` has no newline)."""
    data, crc, size = deflate_repeated(piece, total // len(piece))
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + data + struct.pack("<LL", crc, size & 0xFFFFFFFF)


def _zip_entry(name: bytes, method: int, data: bytes, crc: int, size: int, offset: int, mode: int):
    local = struct.pack(
        "<4s5H3L2H", b"PK\x03\x04", 20, 0, method, 0, 0x21, crc, len(data), size, len(name), 0
    )
    central = struct.pack(
        "<4s6H3L5H2L",
        *(b"PK\x01\x02", 20 | (3 << 8), 20, 0, method, 0, 0x21, crc, len(data), size),
        *(len(name), 0, 0, 0, 0, mode << 16, offset),
    )
    return local + name + data, central + name


def zip_raw(entries: list[tuple[str, int, bytes, int, int, int]]) -> bytes:
    """A zip from (name, method, compressed data, crc, inflated size, unix mode) rows, written
    by hand: zipfile would inflate nothing but would compress a gigabyte for us first."""
    body, directory = io.BytesIO(), io.BytesIO()
    for name, method, data, crc, size, mode in entries:
        local, central = _zip_entry(name.encode(), method, data, crc, size, body.tell(), mode)
        body.write(local)
        directory.write(central)
    count, start, size = len(entries), body.tell(), directory.tell()
    zip64 = b""
    if count > 0xFFFF:  # the count needs the zip64 end record, as zipfile writes it
        record = struct.pack(
            "<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, start
        )
        zip64 = record + struct.pack("<4sLQL", b"PK\x06\x07", 0, start + size, 1)
        count = 0xFFFF
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, size, start, 0)
    return body.getvalue() + directory.getvalue() + zip64 + end


def zip_bomb(total: int = GIB, *, entries: int = 1, folder: str = "chat-1.0.0") -> bytes:
    """A zip whose `entries` files each inflate to `total` zero bytes (honestly declared)."""
    data, crc, size = deflate_repeated(b"\0" * MIB, total // MIB)
    regular = stat.S_IFREG | 0o644
    names = ["items.jsonl", "references.tsv", "README.md", "ratings.tsv", "refs.dev.jsonl"]
    rows = [
        (f"{folder}/{names[k % len(names)]}", 8, data, crc, size, regular) for k in range(entries)
    ]
    return zip_raw(rows)


def zip_many_entries(count: int) -> bytes:
    """A zip of `count` empty files."""
    regular = stat.S_IFREG | 0o644
    return zip_raw([(f"f/{k}", 0, b"", 0, 0, regular) for k in range(count)])


def zip_of(files: dict[str, bytes], *, symlinks: dict[str, str] | None = None) -> bytes:
    """A small zip through zipfile: names as given (zipfile keeps '../' and '/' as they are)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()
