"""A human evaluation as researchers have it — ten systems, three judges, two criteria, header
names from the field, a byte-order mark, ragged and missing references, one system copied from
the references — from raw files to a finished study, through the command line and the API.

The numbers are checked against an independent computation from the raw files: each system's
mean human score by hand, its BLEU-2 with sacrebleu (with no ratings every reference weighs +1,
so ΔBLEU is plain multi-reference BLEU), and the correlations over systems with scipy.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict

import numpy as np
import pytest
from django.core.management import call_command
from sacrebleu.metrics import BLEU
from scipy import stats

from annotate.judgments.models import JudgmentSet
from tests.human_eval_files import CRITERIA, HUMAN, write_human_eval
from tests.runs_kit import execute

# slow: a whole pipeline from raw files (make test and CI, not test-fast)
pytestmark = [pytest.mark.django_db, pytest.mark.slow]
OPTIONS = {"unit_size": 10, "assignments": 50, "metrics": ["bleu", "dbleu"], "sweeps": False}


def _rows(path, delimiter="\t"):
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle, delimiter=delimiter))


def expected_system_level(files, criterion: str, excluded: set[str]) -> dict:
    """Human means and BLEU-2 per system over the items with a reference, straight from the
    files (item means over judges first, as the study does), and the three correlations."""
    refs = {
        row["InstanceID"]: [v for k, v in row.items() if k.startswith("Ref") and v]
        for row in _rows(files.paths["references"])
    }
    items = [i for i in files.item_ids if refs.get(i)]
    outputs = {
        (r["SystemID"], r["InstanceID"]): r["Response"] for r in _rows(files.paths["systems"], ",")
    }
    scores = defaultdict(list)
    for row in _rows(files.paths["judgments"]):
        scores[(row["SystemID"], row["InstanceID"])].append(float(row[criterion]))
    systems = sorted(set(files.systems) - excluded)
    human = {s: np.mean([np.mean(scores[(s, i)]) for i in items]) for s in systems}
    width = max(len(refs[i]) for i in items)
    streams = [[(refs[i] + [""] * width)[k] for i in items] for k in range(width)]
    bleu = {
        s: BLEU(max_ngram_order=2).corpus_score([outputs[(s, i)] for i in items], streams).score
        for s in systems
    }
    x, y = [human[s] for s in systems], [bleu[s] for s in systems]
    return {
        "human": human,
        "bleu": bleu,
        "pearson": stats.pearsonr(x, y)[0],
        "spearman": stats.spearmanr(x, y)[0],
        "kendall": stats.kendalltau(x, y)[0],
    }


def _check(level: dict, expected: dict) -> None:
    by_system = {row["system"]: row for row in level["systems"]}
    assert sorted(by_system) == sorted(expected["human"])
    for system, mean in expected["human"].items():
        assert by_system[system]["human"]["value"] == pytest.approx(mean, abs=1e-9)
        bleu_key = next(k for k in by_system[system]["metrics"] if k.startswith("bleu|"))
        assert by_system[system]["metrics"][bleu_key] == pytest.approx(
            expected["bleu"][system], abs=1e-9
        )
    bleu_row = next(c for c in level["correlations"] if c["metric"] == "bleu")
    for name in ("pearson", "spearman", "kendall"):
        assert bleu_row[name]["value"] == pytest.approx(expected[name], abs=1e-9)
        # A percentile interval of a correlation near 1 may sit below the point (skewed).
        assert -1 <= bleu_row[name]["low"] < bleu_row[name]["high"] <= 1


@pytest.fixture
def files(tmp_path):
    return write_human_eval(tmp_path, seed=11, contexts=120)


def _import_by_command(files, owner) -> JudgmentSet:
    call_command("create_dataset", "dstc", "--name", "DSTC-like", "--owner", owner.username)
    call_command(*files.import_judgments_args("dstc"))
    return JudgmentSet.objects.get(dataset__slug="dstc")


def test_from_raw_files_to_a_study_on_the_command_line(files, owner, tmp_path, capsys):
    judged = _import_by_command(files, owner)
    assert judged.criteria == list(CRITERIA)
    assert judged.report["items_without_references"]["count"] == len(files.reference_less)
    out = tmp_path / "study.json"
    call_command(
        "run_study",
        "dstc",
        "--judgments",
        str(judged.pk),
        "--criterion",
        "Relevance",
        "--criterion",
        "Informativeness",
        "--exclude",
        HUMAN,
        "--unit-size",
        "10",
        "--assignments",
        "50",
        "--metric",
        "bleu",
        "--metric",
        "dbleu",
        "--no-sweeps",
        "--json",
        str(out),
    )
    printed = capsys.readouterr().out
    assert "every reference counts with weight +1" in printed and "Systems — Relevance" in printed
    assert "Segments — Informativeness" in printed and "rank 1" in printed
    result = json.loads(out.read_text())
    assert set(result["segments"]) == set(CRITERIA)
    assert result["inputs"]["excluded_systems"] == [HUMAN]
    for criterion in CRITERIA:
        _check(result["systems"][criterion], expected_system_level(files, criterion, {HUMAN}))
        assert result["criteria"][criterion]["table"]  # the pair level, per criterion
    pairs = {(p["a"], p["b"]) for p in result["pairs"]}
    n = len(files.systems) - 1  # every system but the human responses
    assert len(pairs) == n * (n - 1) // 2 and all(HUMAN not in p for p in pairs)


def test_the_copied_system_is_detected_and_left_out_of_its_own_references(files, owner):
    judged = _import_by_command(files, owner)
    from scoring.study.services import study_create

    study = study_create(
        owner=owner, name="all", split="test", judgment_set=judged, options=OPTIONS
    )
    execute(study.run)
    study.refresh_from_db()
    result = study.result
    assert result["inputs"]["leave_one_out"] is True
    assert any("leave one out switched on" in note and HUMAN in note for note in result["notes"])
    level = result["systems"]["Relevance"]
    human_bleu = next(r for r in level["systems"] if r["system"] == HUMAN)["metrics"]
    assert max(human_bleu.values()) < 100.0  # not a perfect score against its own copy


def test_from_raw_files_to_a_study_through_the_api(files, owner, client_for):
    client = client_for(owner)
    created = client.post("/api/v1/datasets/", {"slug": "dstc", "name": "DSTC-like"}, format="json")
    assert created.status_code == 201, created.json()
    with (
        files.paths["judgments"].open("rb") as judgments,
        files.paths["systems"].open("rb") as systems,
        files.paths["contexts"].open("rb") as contexts,
        files.paths["references"].open("rb") as references,
    ):
        imported = client.post(
            "/api/v1/datasets/dstc/judgments/",
            {
                "judgments": judgments,
                "systems": systems,
                "contexts": contexts,
                "references": references,
            },
            format="multipart",
        )
    assert imported.status_code == 201, imported.json()
    body = {
        "name": "API study",
        "split": "test",
        "judgment_set": imported.json()["id"],
        "criteria": ["Relevance", "Informativeness"],
        "combine": "mean",
        "excluded_systems": [HUMAN],
        "options": OPTIONS,
    }
    wrong = client.post("/api/v1/studies/", {**body, "criteria": ["relevance"]}, format="json")
    assert wrong.status_code == 400 and "Relevance, Informativeness" in json.dumps(wrong.json())
    started = client.post("/api/v1/studies/", body, format="json")
    assert started.status_code == 201, started.json()
    execute(started.json()["run"])
    result = client.get(f"/api/v1/studies/{started.json()['id']}/").json()["result"]
    (name,) = result["systems"]
    assert name == "mean(Relevance, Informativeness)"
    by_system = {row["system"]: row["human"]["value"] for row in result["systems"][name]["systems"]}
    each = [expected_system_level(files, c, {HUMAN})["human"] for c in CRITERIA]
    for system, mean in by_system.items():
        assert mean == pytest.approx((each[0][system] + each[1][system]) / 2, abs=1e-9)
