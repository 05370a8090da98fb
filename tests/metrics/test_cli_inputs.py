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


def _several_refused(capsys, *argv):
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith("dbleu: error: ")
    assert "several reference files must all be plain text" in err
    return err


@pytest.mark.parametrize("shape", ["positional", "-r", "--refs"])
def test_several_jsonl_reference_files_are_refused(tmp_path, capsys, shape):
    # they were read as plain text: every JSON line became a reference (nrefs:2, exit 0)
    a, b = _file(tmp_path, "a.jsonl", REFS), _file(tmp_path, "b.jsonl", REFS)
    hyps = _file(tmp_path, "h.txt", HYPS)
    argv = [a, b] if shape == "positional" else [shape, a, shape, b]
    err = _several_refused(capsys, *argv, "-i", hyps)
    assert f"{a} is a REFS.jsonl" in err


@pytest.mark.parametrize("jsonl_name", ["refs.jsonl", "refs.txt"])
def test_jsonl_among_plain_text_reference_files_is_refused(tmp_path, capsys, jsonl_name):
    jsonl = _file(tmp_path, jsonl_name, BOM + REFS)  # recognised by its content, BOM or not
    plain = _file(tmp_path, "ref.txt", HYPS)
    hyps = _file(tmp_path, "h.txt", HYPS)
    assert f"{jsonl} is a REFS.jsonl" in _several_refused(capsys, plain, jsonl, "-i", hyps)
    assert f"{jsonl} is a REFS.jsonl" in _several_refused(capsys, "-r", jsonl, plain, "-i", hyps)


def test_an_archive_or_standard_input_among_several_reference_files_is_refused(tmp_path, capsys):
    import zipfile

    archive = tmp_path / "release.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("demo-1.0.0/refs.dev.jsonl", REFS)
    plain, hyps = _file(tmp_path, "ref.txt", HYPS), _file(tmp_path, "h.txt", HYPS)
    assert "is a release archive" in _several_refused(capsys, plain, archive, "-i", hyps)
    assert "standard input is" in _several_refused(capsys, plain, "-", "-i", hyps)


def test_the_library_refuses_several_jsonl_files_too(tmp_path):
    from scoring.metrics.base import MetricInputError
    from scoring.metrics.sources import read_references

    a, b = _file(tmp_path, "a.jsonl", REFS), _file(tmp_path, "b.txt", HYPS)
    with pytest.raises(MetricInputError, match="several reference files must all be plain text"):
        read_references([str(b), str(a)])
    assert len(read_references([str(b), str(b)])) == 3  # plain text files still go together


@pytest.mark.parametrize("kind", ["symlink", "dangling symlink", "fifo"])
def test_index_out_refuses_what_is_not_a_regular_file(tmp_path, capsys, kind):
    # it replaced the link, the FIFO (or, as root, /dev/full) with a regular file, exit 0
    import os

    refs = _file(tmp_path, "refs.jsonl", REFS)
    target = _file(tmp_path, "target.idx", b"original")
    out = tmp_path / "out.idx"
    if kind == "fifo":
        os.mkfifo(out)
    else:
        out.symlink_to(target.name if kind == "symlink" else "nowhere.idx")
    code, stdout, err = run(capsys, "index", "--refs", refs, "--out", out)
    assert (code, stdout) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"dbleu: error: --out: {out}: ") and "not a regular file" in err
    assert out.is_symlink() or kind == "fifo"
    assert target.read_bytes() == b"original"


def test_index_out_writes_a_file_readable_as_the_umask_allows(tmp_path, capsys):
    import os
    import stat

    refs = _file(tmp_path, "refs.jsonl", REFS)
    old = os.umask(0o022)
    try:
        assert run(capsys, "index", "--refs", refs, "--out", tmp_path / "refs.idx")[0] == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "refs.idx").st_mode) == 0o644
