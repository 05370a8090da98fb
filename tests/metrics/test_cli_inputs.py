"""What dbleu reads: a UTF-8 byte-order mark before any input is dropped, as the web app drops
it from submissions (core.lines.read_lines), so a file the leaderboard scores gets the same
score from the command line."""

from __future__ import annotations

import json

import pytest

from .test_cli import run

BOM = b"\xef\xbb\xbf"
REFS = (
    b'{"id": "i0", "refs": [{"text": "hello world there", "weight": 0.5}, "bye now"]}\n'
    b'{"id": "i1", "refs": [{"text": "bye now"}, {"text": "hello", "weight": -0.3}]}\n'
    b'{"id": "i2", "refs": ["foo bar baz", "foo"]}\n'
)
HYPS = b"hello world there\nbye now\nfoo bar\n"
HYPS_JSONL = (
    b'{"id": "i2", "hyp": "foo bar"}\n'
    b'{"id": "i0", "hyp": "hello world there"}\n'
    b'{"id": "i1", "hyp": "bye now"}\n'
)


def _file(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _score(capsys, *argv):
    code, out, err = run(capsys, *argv, "-m", "bleu", "dbleu", "--json")
    assert code == 0, err
    return [(r["score"], r["precisions"], r["ref_len"]) for r in json.loads(out)]


@pytest.mark.parametrize(
    ("name", "data"),
    [("h.txt", HYPS), ("h.jsonl.txt", HYPS_JSONL), ("h.jsonl", HYPS_JSONL)],
    ids=["plain", "jsonl-named-txt", "jsonl"],
)
def test_a_bom_before_the_hypotheses_is_dropped(tmp_path, capsys, name, data):
    refs = _file(tmp_path, "refs.jsonl", REFS)
    plain = _score(capsys, refs, "-i", _file(tmp_path, name, data))
    assert plain == _score(capsys, refs, "-i", _file(tmp_path, "bom-" + name, BOM + data))


@pytest.mark.parametrize("name", ["refs.jsonl", "refs.txt", "refs"])
def test_a_bom_before_jsonl_references_is_dropped(tmp_path, capsys, name):
    # .jsonl was refused ("Unexpected UTF-8 BOM"); any other name was read as plain text
    hyps = _file(tmp_path, "h.txt", HYPS)
    plain = _score(capsys, _file(tmp_path, "plain.jsonl", REFS), "-i", hyps)
    assert plain == _score(capsys, _file(tmp_path, name, BOM + REFS), "-i", hyps)


def test_a_bom_before_plain_text_references_is_dropped(tmp_path, capsys):
    hyps = _file(tmp_path, "h.txt", HYPS)
    ref2 = _file(tmp_path, "ref2.txt", b"hello world\nbye\nfoo bar\n")
    plain = _score(capsys, _file(tmp_path, "ref.txt", HYPS), ref2, "-i", hyps)
    assert plain == _score(capsys, _file(tmp_path, "bom.txt", BOM + HYPS), ref2, "-i", hyps)
    assert plain[0][1][:3] == [100.0, 100.0, 100.0]  # the hypotheses are the first references


def test_a_bom_before_references_on_standard_input_is_dropped(tmp_path, capsys, monkeypatch):
    import io
    import sys

    class Pipe(io.BytesIO):  # standard input from a pipe cannot seek back
        def seekable(self):
            return False

    hyps = _file(tmp_path, "h.txt", HYPS)
    plain = _score(capsys, _file(tmp_path, "refs.jsonl", REFS), "-i", hyps)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(Pipe(BOM + REFS)))
    assert plain == _score(capsys, "-", "-i", hyps)


def test_a_bom_before_the_references_of_an_index_is_dropped(tmp_path, capsys):
    hyps = _file(tmp_path, "h.txt", HYPS)
    plain = _score(capsys, _file(tmp_path, "refs.jsonl", REFS), "-i", hyps)
    out = tmp_path / "refs.idx"
    code, _, err = run(capsys, "index", "-r", _file(tmp_path, "bom.jsonl", BOM + REFS), "-o", out)
    assert code == 0, err
    assert plain == _score(capsys, "--index", out, "-i", hyps)
