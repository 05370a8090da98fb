"""One byte range of a download: which span a Range header asks for in a file of a known size."""

import io

import pytest

from core.ranges import BoundedReader, RangeNotSatisfiable, requested_range

SIZE = 100


@pytest.mark.parametrize(
    ("header", "span"),
    [
        ("bytes=0-9", (0, 9)),
        ("bytes=90-", (90, 99)),
        ("bytes=90-500", (90, 99)),  # cut to the end
        ("bytes=-10", (90, 99)),  # the last ten
        ("bytes=-500", (0, 99)),
        (" bytes=5-5 ", (5, 5)),
        (None, None),
        ("", None),
        ("bytes=0-9,20-29", None),  # several ranges: the whole file
        ("bytes=9-0", None),  # inverted
        ("bytes=-", None),
        ("items=0-9", None),  # another unit
        ("bytes=a-9", None),
        ("bytes=" + "9" * 19 + "-", None),  # a number no file reaches: not read
    ],
)
def test_the_span_asked_for(header, span):
    assert requested_range(header, SIZE) == span


@pytest.mark.parametrize("header", ["bytes=100-", "bytes=100-200", "bytes=-0"])
def test_a_span_past_the_end_cannot_be_satisfied(header):
    with pytest.raises(RangeNotSatisfiable):
        requested_range(header, SIZE)


def test_an_empty_file_has_no_last_bytes():
    with pytest.raises(RangeNotSatisfiable):
        requested_range("bytes=-1", 0)


def test_if_range_must_name_the_current_version():
    assert requested_range("bytes=0-9", SIZE, if_range='"old"', etag='"new"') is None
    assert requested_range("bytes=0-9", SIZE, if_range='"new"', etag='"new"') == (0, 9)


def test_the_reader_stops_at_its_length():
    file = io.BytesIO(bytes(range(50)))
    file.seek(10)
    reader = BoundedReader(file, 7)
    assert reader.read(4) + reader.read(4096) + reader.read() == bytes(range(10, 17))
