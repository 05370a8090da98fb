import pytest

from annotate.datasets.formats import FileProblems, item_to_json, parse_jsonl, parse_tsv
from tests.conftest import DATA


def problems_of(parser, text: bytes):
    with pytest.raises(FileProblems) as info:
        parser(text.splitlines(keepends=True))
    return [(p.line, p.field) for p in info.value.problems], [str(p) for p in info.value.problems]


def test_jsonl_reads_items_with_defaults():
    records = parse_jsonl([b'{"id": "a", "message": "m", "references": [{"text": "r"}]}\n'])
    assert records[0].split == "dev"
    assert records[0].context == []
    assert records[0].references[0].origin == "original"
    assert records[0].references[0].provenance == {}


def test_jsonl_names_every_bad_line_and_field():
    where, messages = problems_of(parse_jsonl, (DATA / "bad.jsonl").read_bytes())
    assert where == [
        (2, "id"),
        (3, ""),
        (4, "split"),
        (4, "references"),
        (5, "references[0].weight"),
        (5, "references[0].origin"),
        (6, "id"),
    ]
    assert "line 6, id: 'ok-1' already used on line 1" in messages
    assert any("line 3" in m and "not valid JSON" in m for m in messages)


def test_jsonl_reports_split_when_references_are_fine():
    where, _ = problems_of(
        parse_jsonl, b'{"id": "x", "split": "train", "message": "m", "references": [{"text": "r"}]}'
    )
    assert where == [(1, "split")]


def test_jsonl_rejects_invalid_utf8_by_line():
    ok = b'{"id": "a", "message": "m", "references": [{"text": "r"}]}\n'
    where, messages = problems_of(parse_jsonl, ok + b'{"id": "\xff"}\n')
    assert where == [(2, "")]
    assert "UTF-8" in messages[0]


def test_jsonl_accepts_a_byte_order_mark_and_blank_lines():
    text = b'\xef\xbb\xbf{"id": "a", "message": "m", "references": [{"text": "r"}]}\n\n'
    assert [r.external_id for r in parse_jsonl(text.splitlines(keepends=True))] == ["a"]


@pytest.mark.parametrize(
    "line, field",
    [
        (b'{"id": "a", "message": "", "references": [{"text": "r"}]}', "message"),
        (
            b'{"id": "a", "message": "m", "context": "not a list", "references": [{"text": "r"}]}',
            "context",
        ),
        (
            b'{"id": "a", "message": "m", "references": [{"text": "r", "provenance": 3}]}',
            "references[0].provenance",
        ),
        (b'{"id": "a", "message": "m", "references": ["r"]}', "references[0]"),
        (b'{"id": "a", "message": "m", "references": [{"text": "r"}], "extra": 1}', "extra"),
        (b'["a list"]', ""),
    ],
)
def test_jsonl_field_rules(line, field):
    where, _ = problems_of(parse_jsonl, line)
    assert where == [(1, field)]


def test_empty_files_are_refused():
    assert problems_of(parse_jsonl, b"")[1] == ["the file holds no items"]
    assert problems_of(parse_tsv, b"")[1] == ["the file is empty"]


def test_tsv_groups_rows_into_items():
    records = parse_tsv((DATA / "small.tsv").read_bytes().splitlines(keepends=True))
    assert [(r.external_id, len(r.references)) for r in records] == [("t1", 2), ("t2", 1)]
    assert records[0].context == ["hi there", "how are you?"]
    assert records[0].references[1].provenance == {"bm25": 3.2}
    assert records[1].context == []


def test_tsv_names_bad_rows():
    text = (
        b"id\tmessage\treference\torigin\n"
        b"a\tm\tr\toriginal\n"
        b"a\tdifferent\tr2\tmined\n"
        b"b\tm\n"
        b"c\tm\t\tcopied\n"
    )
    where, messages = problems_of(parse_tsv, text)
    assert where == [(3, "message"), (4, ""), (5, "reference"), (5, "origin")]
    assert "line 3, message: differs from line 2 of the same item" in messages


def test_tsv_header_must_name_known_and_required_columns():
    where, _ = problems_of(parse_tsv, b"id\ttext\tcolour\n1\t2\t3\n")
    assert where == [(1, "text"), (1, "colour"), (1, "message"), (1, "reference")]


def test_canonical_json_line_keeps_non_ascii_and_key_order():
    line = item_to_json(
        external_id="x",
        split="dev",
        context=[],
        message="café",
        references=[{"text": "oui", "origin": "original", "provenance": {}}],
    )
    assert line == (
        '{"id": "x", "split": "dev", "context": [], "message": "café", '
        '"references": [{"text": "oui", "origin": "original", "provenance": {}}]}'
    )
