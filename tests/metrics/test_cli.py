"""The CLI contract: output fields, index, significance, and errors naming line/item."""

from __future__ import annotations

import json
import re

import pytest

from scoring.metrics.cli import main


@pytest.fixture
def files(tmp_path):
    refs = tmp_path / "refs.jsonl"
    refs.write_text(
        '{"id": "1", "refs": [{"text": "the cat sat on the mat", "weight": 1}, '
        '{"text": "a cat", "weight": -0.5}]}\n'
        '{"id": "2", "refs": [{"text": "it was great ."}]}\n',
        encoding="utf-8",
    )
    h1, h2 = tmp_path / "h1.txt", tmp_path / "h2.txt"
    h1.write_text("the cat sat on a mat\nit was great .\n", encoding="utf-8")
    h2.write_text("a cat\nit was ok .\n", encoding="utf-8")
    return tmp_path, refs, h1, h2


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_score_json_fields(files, capsys):
    _, refs, h1, _ = files
    code, out, _ = run(
        capsys,
        "score",
        "--metric",
        "dbleu",
        "--refs",
        refs,
        "--hyps",
        h1,
        "--json",
        "--ci",
        "--max-order",
        "2",
    )
    assert code == 0
    res = json.loads(out)
    for key in (
        "score",
        "precisions",
        "bp",
        "sys_len",
        "ref_len",
        "signature",
        "ci_low",
        "ci_high",
    ):
        assert key in res
    assert len(res["precisions"]) == 2 and res["signature"].startswith("dbleu|def:paper|order:2")


def test_index_then_score_and_paired_tests(files, capsys):
    tmp, refs, h1, h2 = files
    idx = tmp / "refs.idx"
    assert run(capsys, "index", "--refs", refs, "--out", idx)[0] == 0
    for test in ("--paired-bs", "--paired-ar"):
        code, out, _ = run(capsys, "score", "--index", idx, "--hyps", h1, h2, test, "--json")
        assert code == 0
        res = json.loads(out)
        assert res[0]["p_value"] is None and 0 < res[1]["p_value"] <= 1
    code, text, _ = run(capsys, "score", "--refs", refs, "--hyps", h1)
    assert code == 0 and text.startswith("dbleu|") and "BP =" in text


def test_jsonl_hyps_by_id_and_stdin(files, capsys, monkeypatch):
    tmp, refs, _, _ = files
    hyps = tmp / "h.jsonl"
    hyps.write_text('{"id": "2", "hyp": "it was great ."}\n{"id": "1", "hyp": "a cat"}\n')
    code, out, _ = run(
        capsys, "score", "--metric", "bleu", "--refs", refs, "--hyps", hyps, "--json"
    )
    assert code == 0 and json.loads(out)["sys_len"] == 6


@pytest.mark.parametrize(
    "refs_text, hyps_text, message",
    [
        ('{"id": "1", "refs": [{"text": "a"}]}\n', "a\nb\n", "2 hypothesis lines for 1 items"),
        (
            '{"id": "1", "refs": [{"text": "a"}]}\n{"id": 2, "refs": [\n',
            "a\nb\n",
            "line 2: bad JSON",
        ),
        ('{"id": "1", "refs": [{"text": "a", "weight": 2}]}\n', "a\n", "item '1'.*outside"),
        (
            '{"id": "1", "refs": [{"text": "a", "weight": -1}]}\n',
            "a\n",
            "item '1'.*positive weight",
        ),
        (
            '{"id": "1", "refs": [{"text": "a"}]}\n',
            '{"id": "9", "hyp": "a"}\n',
            "line 1: unknown id",
        ),
        ('{"id": "1", "refs": [{"text": "a"}]}\n', b"\xff\xfe\n", "line 1: invalid UTF-8"),
    ],
)
def test_errors_name_line_or_item(tmp_path, capsys, refs_text, hyps_text, message):
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.txt"
    refs.write_text(refs_text)
    hyps.write_bytes(hyps_text if isinstance(hyps_text, bytes) else hyps_text.encode())
    code, _, err = run(capsys, "score", "--refs", refs, "--hyps", hyps)
    assert code == 1
    assert re.search(message, err), err


def test_option_of_another_metric_is_rejected(files, capsys):
    _, refs, h1, _ = files
    code, _, err = run(
        capsys, "score", "--metric", "bleu", "--definition", "paper", "--refs", refs, "--hyps", h1
    )
    assert code == 2 and "--definition does not apply to metric bleu" in err


@pytest.mark.parametrize("metric", ["nist", "dnist", "4grr", "amber"])
def test_companion_metrics_share_the_cli_contract(files, capsys, metric):
    tmp, refs, h1, h2 = files
    code, out, _ = run(
        capsys,
        "score",
        "--metric",
        metric,
        "--refs",
        refs,
        "--hyps",
        h1,
        h2,
        "--json",
        "--ci",
        "--paired-bs",
        "--n-bootstrap",
        "200",
    )
    assert code == 0
    first, second = json.loads(out)
    assert first["signature"].startswith(metric + "|")
    assert first["ci_low"] <= first["score"] <= first["ci_high"]
    assert 0 < second["p_value"] <= 1
    index = tmp / f"{metric}.idx"
    assert run(capsys, "index", "--metric", metric, "--refs", refs, "--out", index)[0] == 0
    code, out, _ = run(capsys, "score", "--index", index, "--hyps", h1, "--json")
    assert code == 0
    assert json.loads(out)["score"] == pytest.approx(first["score"], abs=1e-12)


def test_equal_scores_are_not_significant(files, capsys):
    # a zero difference got sacrebleu's p = 1/(n+1), starred in the table; the board says p = 1
    tmp, refs, h1, _ = files
    copy = tmp / "copy.txt"
    copy.write_bytes(h1.read_bytes())
    argv = [refs, "-i", h1, copy, "--paired-bs", "--paired-ar", "--n-bootstrap", "50"]
    code, out, _ = run(capsys, *argv, "--n-ar", "50", "--json")
    assert code == 0
    second = json.loads(out)[1]
    assert second["p_value_bs"] == second["p_value_ar"] == second["p_value"] == 1.0
    code, table, _ = run(capsys, *argv, "--n-ar", "50")
    assert code == 0 and re.search(r"copy\.txt +\S+ +1\.0000 +1\.0000$", table, re.M)
    assert "0 *" not in table  # no star
