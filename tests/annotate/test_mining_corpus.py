"""Reading corpora: JSONL and TSV, gzip, streamed, bad rows reported by line."""

import gzip
import io

import pytest

from annotate.mining.corpus import Triple, format_for, read_triples
from core.lines import LineProblems
from tests.conftest import DATA


def read(data: bytes, fmt: str = "jsonl"):
    problems = LineProblems()
    return list(read_triples(io.BytesIO(data), fmt, problems)), problems


def test_jsonl_rows_keep_their_line_numbers_and_fields():
    triples, problems = read((DATA / "mining_corpus.jsonl").read_bytes())
    assert len(triples) == 10 and not problems.problems
    assert triples[1] == Triple(
        line=2,
        context=["football tonight"],
        message="what a goal in the last minute",
        response="best finish of the season, keeper had no chance",
        conversation="x2",
    )


def test_bad_rows_are_reported_by_line_and_field():
    triples, problems = read((DATA / "mining_bad_corpus.jsonl").read_bytes())
    assert [t.line for t in triples] == [1, 7]
    assert [str(p) for p in problems.problems] == [
        "line 2: not valid JSON (Expecting value at column 31)",
        "line 3, response: must be a non-empty string",
        "line 4, context: must be a list of strings",
        "line 6: must be a JSON object",
    ]
    assert problems.bad_lines == 4


def test_a_row_with_two_problems_counts_once():
    _, problems = read(b'{"message": "", "response": ""}\n')
    assert len(problems.problems) == 2 and problems.bad_lines == 1


def test_gzip_is_recognised_by_its_bytes_not_its_name():
    triples, _ = read(gzip.compress((DATA / "mining_corpus.jsonl").read_bytes()))
    assert len(triples) == 10


def test_tsv_with_a_header_in_any_order_and_context_turns():
    data = "response\tmessage\tcontext\tconversation\nyo\thi\ta ||| b\tc7\n"
    triples, problems = read(data.encode(), "tsv")
    assert triples == [Triple(2, ["a", "b"], "hi", "yo", "c7")] and not problems.problems


def test_tsv_without_a_header_is_context_message_response():
    triples, problems = read(b"\thi\tyo\nctx\thow are you\n", "tsv")
    assert triples == [Triple(1, [], "hi", "yo")]
    assert [str(p) for p in problems.problems] == ["line 2: has 2 columns, expected 3"]


def test_invalid_utf8_is_a_problem_of_its_line():
    triples, problems = read(b'{"message": "a", "response": "b"}\n\xff\xfe\n', "jsonl")
    assert len(triples) == 1 and problems.problems[0].line == 2


def test_rows_are_read_one_at_a_time():
    # A generator over the file: the first row comes before the rest is read.
    stream = io.BytesIO((DATA / "mining_corpus.jsonl").read_bytes() * 1000)
    first = next(read_triples(stream, "jsonl", LineProblems()))
    assert first.line == 1 and stream.tell() < len(stream.getvalue())


@pytest.mark.parametrize(
    "name, fmt",
    [
        ("a.jsonl", "jsonl"),
        ("a.JSONL.gz", "jsonl"),
        ("b.tsv.gz", "tsv"),
        ("c.txt", "tsv"),
        ("d.csv", ""),
    ],
)
def test_format_from_the_file_name(name, fmt):
    assert format_for(name) == fmt
