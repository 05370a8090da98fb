"""The streaming REFS.jsonl reader (blocks parsed by one call, checked in bulk) gives the items
and the messages of a line-by-line reader, whatever the block boundaries."""

from __future__ import annotations

import io
import json

import pytest

from scoring.metrics import MetricInputError, parse_ref_item, read_hyps, read_refs_jsonl
from scoring.metrics import io as metrics_io


def _line_by_line(data: bytes) -> list:
    """The reference semantics: json.loads and parse_ref_item one line at a time."""
    items, seen = [], {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        where = f"f, line {number}"
        item = parse_ref_item(json.loads(raw.decode("utf-8")), where)
        if item.id in seen:
            raise MetricInputError(f"{where}: item {item.id!r} already on line {seen[item.id]}")
        seen[item.id] = number
        items.append(item)
    return items


GOOD = (
    b'{"id": "a", "refs": [{"text": "x y", "weight": 0.5}, "plain string", {"text": "z"}]}\n'
    b"\n"
    b'{"id": 7, "refs": [{"text": "int id", "weight": -1}]}\n'
    b'  {"id": "c", "refs": [{"text": "\\u00fc", "weight": 1}]}  \r\n'
)


@pytest.mark.parametrize("block_bytes", [1, 64, 1 << 22])
def test_items_equal_the_line_by_line_reading(monkeypatch, block_bytes):
    monkeypatch.setattr(metrics_io, "_BLOCK_BYTES", block_bytes)
    got = read_refs_jsonl(io.BytesIO(GOOD), name="f")
    assert list(got) == _line_by_line(GOOD)
    assert got.ids == ["a", "7", "c"] and got.nrefs() == "var"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"id": "b", "refs": [{"text": "t", "weight": true}]}', "is not a number"),
        (b'{"id": "b", "refs": [{"text": "t", "weight": 1.5}]}', "outside [-1, 1]"),
        (b'{"id": "b", "refs": [{"text": "t", "weight": NaN}]}', "outside [-1, 1]"),
        (b'{"id": "b", "refs": [{"text": "t", "weight": "1"}]}', "is not a number"),
        (b'{"id": "b", "refs": [{"text": 3}]}', 'needs a string "text"'),
        (b'{"id": "b", "refs": []}', '"refs" must be a non-empty list'),
        (b'{"id": "", "refs": ["t"]}', 'missing or invalid "id"'),
        (b'{"id": "a", "refs": ["t"]}', "item 'a' already on line 1"),
        (b"[1, 2]", "expected a JSON object"),
        (b"1, 2", "bad JSON"),
        (b'{"id": "b", "refs": ["t"]', "bad JSON"),
        (b'{"id": "b", "refs": ["\xff"]}', "invalid UTF-8"),
    ],
)
@pytest.mark.parametrize("block_bytes", [1, 1 << 22])
def test_a_fault_names_its_line_as_line_by_line(monkeypatch, line, message, block_bytes):
    monkeypatch.setattr(metrics_io, "_BLOCK_BYTES", block_bytes)
    data = GOOD + line + b"\n"
    with pytest.raises(MetricInputError) as err:
        read_refs_jsonl(io.BytesIO(data), name="f")
    assert "f, line 5" in str(err.value) and message in str(err.value)


def test_no_items_is_an_error():
    with pytest.raises(MetricInputError, match="f: no items"):
        read_refs_jsonl(io.BytesIO(b"\n  \n"), name="f")


class _Pipe(io.BytesIO):
    """A stream that cannot seek back, as standard input from a pipe."""

    def seekable(self):
        return False


@pytest.mark.parametrize("stream", [io.BytesIO, _Pipe])
def test_a_byte_order_mark_is_dropped_and_nothing_else(stream):
    assert list(read_refs_jsonl(stream(b"\xef\xbb\xbf" + GOOD), name="f")) == _line_by_line(GOOD)
    # a first character whose UTF-8 starts as a BOM does (U+FF01 is EF BC 81) stays whole
    assert read_hyps(stream("\uff01 a\nb".encode()), ["1", "2"]) == ["\uff01 a", "b"]
    assert read_hyps(stream(b"\xef\xbb\xbfa\nb\n"), ["1", "2"]) == ["a", "b"]
    assert read_hyps(stream(b"\xef\xbb\xbf"), []) == []
    with pytest.raises(MetricInputError, match="line 1: invalid UTF-8"):
        read_hyps(stream(b"\xef\xbbx\n"), ["1"])  # half a BOM is not one
