"""The test bombs are valid files: their CRCs, computed without inflating them, are zlib's."""

import gzip
import zlib

import pytest

from tests.bombs import MIB, crc32_repeated, gzip_bomb


@pytest.mark.parametrize(
    "piece, times",
    [(b"\0" * MIB, 37), (b"a line\n" * 100, 513), (bytes(range(256)), 1), (b"xyz", 0)],
)
def test_the_crc_of_a_repeated_piece_is_zlibs(piece, times):
    assert crc32_repeated(piece, times) == zlib.crc32(piece * times)


def test_a_small_gzip_bomb_inflates_with_its_crc_checked():
    assert gzip.decompress(gzip_bomb(8 * MIB)) == b"\0" * (8 * MIB)
