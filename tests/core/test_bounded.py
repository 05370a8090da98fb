"""core.bounded: streams are refused at the first broken limit, early, in little memory."""

import gzip
import io
import time
import tracemalloc

import pytest
from django.core.exceptions import ValidationError

from core.bounded import Limit, LimitExceeded, Limits, drain, lines, open_maybe_gzip
from tests.bombs import GIB, MIB, gzip_bomb


def read_all(data: bytes, limits: Limits) -> list[bytes]:
    return list(lines(open_maybe_gzip(io.BytesIO(data), label="The file", limits=limits)))


def refusal(data: bytes, limits: Limits) -> tuple[LimitExceeded, float, int]:
    """The refusal, the seconds it took and the peak of Python memory while reading."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(LimitExceeded) as caught:
            read_all(data, limits)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return caught.value, time.perf_counter() - started, peak


LINE = Limits(line=Limit("UPLOAD_MAX_LINE_BYTES", 10))


def test_a_gzip_bomb_of_one_gigabyte_line_is_refused_by_its_line_with_default_limits():
    bomb = gzip_bomb(GIB)  # 1 MB on disk
    exc, seconds, peak = refusal(bomb, Limits.for_corpora())
    assert exc.limit == Limit("UPLOAD_MAX_LINE_BYTES", 1024 * 1024)
    assert "line 1 is longer" in exc.messages[0] and "UPLOAD_MAX_LINE_BYTES = 1,048,576" in str(exc)
    assert seconds < 1 and peak < 8 * MIB


def test_a_gzip_bomb_of_short_lines_is_refused_by_its_ratio_with_default_limits():
    line = b"x" * 99 + b"\n"
    bomb = gzip_bomb(GIB, piece=line * (MIB // len(line)))
    exc, seconds, peak = refusal(bomb, Limits.for_corpora())
    assert exc.limit.setting == "ARCHIVE_MAX_RATIO" and "more than 100:1" in str(exc)
    assert seconds < 1 and peak < 8 * MIB


def test_the_total_is_capped(settings):
    settings.CORPUS_MAX_INFLATED_BYTES = MIB
    text = b"".join(b"%08d plain text that compresses only a little\n" % k for k in range(50_000))
    with pytest.raises(LimitExceeded, match="inflates past 1,048,576 bytes") as caught:
        read_all(gzip.compress(text), Limits.for_corpora())
    assert caught.value.limit.setting == "CORPUS_MAX_INFLATED_BYTES"


def test_plain_files_are_bounded_too():
    with pytest.raises(LimitExceeded, match="line 2 is longer"):
        read_all(b"short\n" + b"y" * 11 + b"\n", LINE)


@pytest.mark.parametrize("compress", [lambda d: d, gzip.compress], ids=["plain", "gzip"])
def test_lines_up_to_the_limit_pass_exactly(compress):
    data = b"0123456789\n\nabc\r\n" + b"z" * 10
    assert read_all(compress(data), LINE) == [b"0123456789\n", b"\n", b"abc\r\n", b"z" * 10]


def test_a_long_file_of_lines_ended_by_carriage_returns_alone_is_told_why():
    with pytest.raises(LimitExceeded, match="carriage return alone") as caught:
        read_all(b"short\r" * 3, LINE)
    assert "line 1 is longer" in str(caught.value)
    with pytest.raises(LimitExceeded) as caught:
        read_all(b"y" * 11, LINE)
    assert "carriage return" not in str(caught.value)


def test_a_long_line_between_two_newlines_of_one_chunk_is_found():
    data = b"a\n" + b"b" * 11 + b"\nc\n"
    with pytest.raises(LimitExceeded, match="line 2"):
        drain(open_maybe_gzip(io.BytesIO(data), label="f", limits=LINE), up_to=100)


def test_a_line_across_chunks_is_counted_whole():
    data = b"q" * (200 * 1024) + b"\n"
    limits = Limits(line=Limit("UPLOAD_MAX_LINE_BYTES", 150 * 1024))
    with pytest.raises(LimitExceeded, match="line 1"):
        read_all(data, limits)


def test_small_files_are_not_judged_by_their_ratio():
    data = gzip.compress(b"{}\n" * 100_000)  # 300 KB at about 300:1
    assert len(read_all(data, Limits(ratio=Limit("ARCHIVE_MAX_RATIO", 10)))) == 100_000


def test_a_damaged_gzip_is_bad_input_not_a_crash():
    data = gzip.compress(b"hello\n" * 1000)
    with pytest.raises(ValidationError, match="damaged") as caught:
        read_all(data[: len(data) // 2], Limits())
    assert not isinstance(caught.value, LimitExceeded)
