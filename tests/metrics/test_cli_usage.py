"""dbleu's usage contract: every bad value is one line on standard error and exit status 2;
--version loads nothing; several systems and metrics in one pass, with a significance table in
text, JSON and LaTeX; sacrebleu's conventions (REFS -i HYPS, plain text references, -m); a
release archive as the reference set."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import pytest
import sacrebleu

from .test_cli import files, run  # noqa: F401 (the fixture)

REFS_TEXT = (
    '{"id": "a", "refs": [{"text": "the cat sat on the mat"}, '
    '{"text": "a cat sat", "weight": 0.5}]}\n'
    '{"id": "b", "refs": [{"text": "it was great ."}, {"text": "it was fine", "weight": -0.2}]}\n'
)


def test_references_are_asked_for_without_not_both(files, capsys):  # noqa: F811
    # With none given it said "… or --index, not both".
    _, _, h1, _ = files
    code, _, err = run(capsys, "score", "--hyps", h1)
    assert code == 2 and err.rstrip().endswith("give the references (REFS or --refs) or --index")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--n-bootstrap", "0", "--ci"], "--n-bootstrap must be at least 1"),
        (["--n-bootstrap", "-3", "--paired-bs"], "--n-bootstrap must be at least 1"),
        (["--n-ar", "0"], "--n-ar must be at least 1"),
        (["--n-bootstrap", "1000001", "--ci"], "--n-bootstrap must be at most 1000000"),
        (["--n-bootstrap", "10000000000000", "--ci"], "--n-bootstrap must be at most 1000000"),
        (["--n-bootstrap", str(10**20), "--paired-bs"], "--n-bootstrap must be at most"),
        (["--n-ar", str(10**20)], "--n-ar must be at most 1000000"),
        (["--seed", "-1"], "--seed must be between 0"),
        (["--metric", "sbleu", "--smooth-value", "nan"], "--smooth-value: nan is not a finite"),
        (["--metric", "sbleu", "--smooth-value", "-1"], "--smooth-value: -1.0 is below 0"),
        (["--metric", "bleu", "--max-order", "0"], "--max-order: 0 is below 1"),
        (["--metric", "bleu", "--definition", "paper"], "--definition does not apply"),
        (["--paired-ar"], "a paired test needs at least two systems"),
        (["--split", "test"], "--split applies to a release archive"),
        (["--max-order", "x"], "invalid int value"),
    ],
)
def test_bad_values_are_one_line_and_status_2(files, capsys, argv, message):  # noqa: F811
    _, refs, h1, _ = files
    code, out, err = run(capsys, "score", "--refs", refs, "--hyps", h1, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("dbleu") and message in err


@pytest.mark.parametrize(
    "argv",
    [
        ["score", "--refs", "missing.jsonl", "--hyps", "missing.txt"],
        ["score", "--hyps", "h.txt"],
        ["score", "--refs", "r.jsonl", "--index", "i.idx", "--hyps", "h.txt"],
        ["score", "--refs", "r.jsonl"],
        ["score", "--refs", "-", "--hyps", "-"],
        ["score", "--refs", "r.jsonl", "--hyps", "h.txt", "--bogus"],
        ["index", "--refs", "r.jsonl", "--out", "no/such/dir/x.idx"],
        ["index", "--refs", "r.jsonl", "--out", "."],
        ["score", "--refs", "r.jsonl", "--hyps", "h.txt", "-m", "nope"],
    ],
)
def test_usage_errors_exit_2_without_a_traceback(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.jsonl").write_text(REFS_TEXT, encoding="utf-8")
    (tmp_path / "h.txt").write_text("x\ny\n", encoding="utf-8")
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("dbleu") and " error: " in err


def test_version_loads_neither_numpy_nor_the_metrics():
    code = (
        "import sys; from scoring.metrics.cli import main; main(['--version']); "
        "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith('scoring.metrics.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert (
        out[0].startswith("dbleu ")
        and out[1] == "['scoring.metrics.cli', 'scoring.metrics.version']"
    )


def test_sacrebleu_shape_equals_the_score_command(files, capsys):  # noqa: F811
    _, refs, h1, _ = files
    assert (
        run(capsys, refs, "-i", h1, "-m", "bleu")[1]
        == run(capsys, "score", "--refs", refs, "--hyps", h1, "--metric", "bleu")[1]
    )


def test_plain_text_references_equal_sacrebleu(tmp_path, capsys):
    hyps = ["the cat sat on a mat", "it was great .", "nothing"]
    streams = [
        ["the cat sat on the mat", "it was great !", "a b"],
        ["a cat", "great", "nothing here"],
    ]
    paths = []
    for k, stream in enumerate(streams):
        paths.append(tmp_path / f"ref{k}.txt")
        paths[-1].write_text("\n".join(stream) + "\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    code, out, _ = run(
        capsys, *paths, "-i", tmp_path / "h.txt", "-m", "bleu", "dbleu", "-f", "json"
    )
    assert code == 0
    expected = sacrebleu.corpus_bleu(hyps, streams).score
    for res in json.loads(out):
        assert res["score"] == pytest.approx(expected, abs=1e-9)
        assert "nrefs:2" in res["signature"]


def test_several_systems_and_metrics_in_one_table(files, capsys):  # noqa: F811
    _, refs, h1, h2 = files
    argv = ["-r", refs, "-i", h1, h2, "-m", "dbleu", "bleu", "--paired-bs", "--paired-ar"]
    argv += ["--n-bootstrap", "50", "--n-ar", "50", "--ci"]
    code, out, _ = run(capsys, "score", *argv, "-f", "json")
    assert code == 0
    results = json.loads(out)
    assert [(r["metric"], r["hyps"]) for r in results] == [
        ("dbleu", str(h1)),
        ("dbleu", str(h2)),
        ("bleu", str(h1)),
        ("bleu", str(h2)),
    ]
    assert results[0]["p_value_bs"] is None and 0 < results[1]["p_value_ar"] <= 1
    assert results[1]["p_value"] == results[1]["p_value_bs"]
    code, text, _ = run(capsys, "score", *argv)
    assert code == 0 and "p (paired bootstrap)" in text and "baseline" in text
    assert results[0]["signature"] in text and results[2]["signature"] in text
    code, latex, _ = run(capsys, "score", *argv, "--format", "latex")
    assert code == 0 and latex.count("\\begin{tabular}") == 2 and "$\\Delta$BLEU" in latex
    assert f"% {results[0]['signature']}" in latex


def _archive(tmp_path, splits):
    path = tmp_path / "release.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for split in splits:
            zf.writestr(f"demo-1.0.0/refs.{split}.jsonl", REFS_TEXT)
        zf.writestr("demo-1.0.0/README.md", "datasheet")
    return path


def test_a_release_archive_is_a_reference_set(files, capsys, tmp_path):  # noqa: F811
    _, _, h1, _ = files
    direct = tmp_path / "refs.jsonl"
    direct.write_text(REFS_TEXT, encoding="utf-8")
    expected = run(capsys, "score", "--refs", direct, "--hyps", h1)[1]
    one = _archive(tmp_path, ["test"])
    assert run(capsys, one, "-i", h1) == (0, expected, "")
    two = _archive(tmp_path, ["dev", "test"])
    assert run(capsys, two, "-i", h1, "--split", "test") == (0, expected, "")
    code, _, err = run(capsys, two, "-i", h1)
    assert code == 1 and "several splits (dev, test); choose one with --split" in err
    code, _, err = run(capsys, two, "-i", h1, "--split", "train")
    assert code == 1 and "no split 'train'" in err


def test_references_from_standard_input(files, capsys, monkeypatch):  # noqa: F811
    import io

    _, refs, h1, _ = files
    expected = run(capsys, "score", "--refs", refs, "--hyps", h1)[1]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(refs.read_bytes())))
    assert run(capsys, "-", "-i", h1) == (0, expected, "")


def test_index_of_a_release_archive(files, capsys, tmp_path):  # noqa: F811
    _, _, h1, _ = files
    archive = _archive(tmp_path, ["dev", "test"])
    out = tmp_path / "refs.idx"
    assert run(capsys, "index", "-r", archive, "--split", "dev", "-o", out)[0] == 0
    assert (
        run(capsys, "score", "--index", out, "-i", h1)[1]
        == run(capsys, archive, "--split", "dev", "-i", h1)[1]
    )


@pytest.mark.parametrize("metric", ["dbleu", "sbleu", "nist", "amber"])
def test_several_systems_in_parts_score_as_each_alone(files, capsys, monkeypatch, metric):  # noqa: F811
    from scoring.metrics import cli

    _, refs, h1, h2 = files
    monkeypatch.setattr(cli, "PART_ITEMS", 1)  # one item a part: the references prepared per part
    together = json.loads(run(capsys, refs, "-i", h1, h2, "-m", metric, "--json")[1])
    for res, path in zip(together, (h1, h2), strict=True):
        alone = json.loads(run(capsys, refs, "-i", path, "-m", metric, "--json")[1])
        assert res["score"] == pytest.approx(alone["score"], abs=1e-12)
        assert res["signature"] == alone["signature"]
