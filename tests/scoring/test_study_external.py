"""Uploaded metrics in the study's engine: more columns of the segment level's per-response
grids, and a system's score the mean of its responses' scores, through the same statistics."""

import numpy as np
import pytest
from scipy import stats as sps

from scoring.metrics import get_metric
from scoring.study.analysis.configs import StudyOptions, system_configs
from scoring.study.analysis.data import ExternalScores, ref_items
from scoring.study.analysis.engine import run_study
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study

OPTIONS = StudyOptions(
    unit_size=10, assignments=20, bootstrap=200, metrics=("bleu", "dbleu"), sweeps=False
)
QUALITIES = (0.2, 0.3, 0.45, 0.5, 0.6, 0.8)


def _bleu_per_response(data):
    """BLEU-2 of each response alone, straight from the library (one statistics row each)."""
    cfg = next(c for c in system_configs(OPTIONS) if c.metric == "bleu")
    metric = get_metric(cfg.metric, **cfg.metric_options)
    prepared = metric.prepare(ref_items(data, "all")[0])
    out = {}
    for system, outputs in data.outputs.items():
        rows = metric.stats([h or "" for h in outputs], prepared)
        out[system] = np.array(
            [float(metric.scores_from_stats(r)) if h is not None else np.nan
             for r, h in zip(rows, outputs, strict=True)]
        )  # fmt: skip
    return cfg.key, out


@pytest.fixture(scope="module")
def study():
    spec = SyntheticSpec(n_items=60, qualities=QUALITIES, n_pairs=5, criteria=("rel",))
    data = synthetic_study(spec)
    data.system_scores["rel"]["sys1"] = data.system_scores["rel"]["sys1"].copy()
    data.system_scores["rel"]["sys1"][[0, 5]] = np.nan  # unrated responses
    human = {s: v.copy() for s, v in data.system_scores["rel"].items()}
    bleu_key, bleu = _bleu_per_response(data)
    # Human scores negated, said to be lower-is-better: the same ranking, direction applied.
    upside_down = {s: -v for s, v in human.items()}
    partial = {s: v.copy() for s, v in human.items()}
    partial["sys2"][3] = np.nan  # a response the uploaded file did not score
    data.external = [
        ExternalScores("oracle", human, description="the human scores themselves"),
        ExternalScores("bleu-copy", bleu),
        ExternalScores("oracle-loss", upside_down, higher_is_better=False),
        ExternalScores("partial", partial),
    ]
    return data, bleu_key, run_study(data, OPTIONS)


def _row(rows, key):
    return next(r for r in rows if r["key"] == key)


def test_an_external_metric_equal_to_the_human_scores_agrees_perfectly(study):
    _, _, result = study
    for key in ("external:oracle", "external:oracle-loss"):
        segment = _row(result["segments"]["rel"]["correlations"], key)
        assert segment["none"]["pearson"]["value"] == pytest.approx(1.0)
        assert segment["item"]["pearson"]["value"] == pytest.approx(1.0)
        system = _row(result["systems"]["rel"]["correlations"], key)
        assert system["pairwise_accuracy"]["value"] == 1.0
        assert system["pearson"]["value"] == pytest.approx(1.0)
        assert system["spa"]["value"] == pytest.approx(1.0)
    ranks = {r["key"]: r["rank"] for r in result["segments"]["rel"]["clusters"]["ranks"]}
    assert ranks["external:oracle"] == 1


def test_labels_and_signatures_say_external(study):
    _, _, result = study
    row = _row(result["segments"]["rel"]["correlations"], "external:oracle")
    assert row["label"] == "external: oracle"
    assert row["signature"].startswith("external: oracle|higher is better")
    assert "the human scores themselves" in row["signature"]
    loss = _row(result["systems"]["rel"]["correlations"], "external:oracle-loss")
    assert loss["signature"].startswith("external: oracle-loss|lower is better")


def test_a_copy_of_a_builtins_per_response_scores_gets_its_segment_level(study):
    _, bleu_key, result = study
    rows = result["segments"]["rel"]["correlations"]
    builtin, copy = _row(rows, bleu_key), _row(rows, "external:bleu-copy")
    for grouping in ("none", "item"):
        for name in ("pearson", "spearman", "kendall"):
            assert copy[grouping][name]["value"] == pytest.approx(
                builtin[grouping][name]["value"], abs=1e-12
            )
    assert copy["acc_eq"]["value"] == pytest.approx(builtin["acc_eq"]["value"])
    assert copy["responses"] == builtin["responses"]


def test_a_systems_external_score_is_the_mean_over_the_shared_items(study):
    data, _, result = study
    level = result["systems"]["rel"]
    shown = {row["system"]: row["metrics"]["external:bleu-copy"] for row in level["systems"]}
    human = np.vstack([data.system_scores["rel"][s] for s in sorted(shown)])
    has = np.vstack([data.has_output(s) for s in sorted(shown)])
    shared = np.all(np.isfinite(human) & has, axis=0)
    assert shared.sum() == level["items"]
    bleu = data.external[1].scores
    for system, value in shown.items():
        assert value == pytest.approx(bleu[system][shared].mean())
    means = [shown[s] for s in sorted(shown)]
    humans = [r["human"]["value"] for r in sorted(level["systems"], key=lambda r: r["system"])]
    row = _row(level["correlations"], "external:bleu-copy")
    assert row["pearson"]["value"] == pytest.approx(sps.pearsonr(means, humans).statistic)


def test_an_incomplete_external_metric_stays_at_segment_level_only(study):
    _, _, result = study
    segment_keys = [r["key"] for r in result["segments"]["rel"]["correlations"]]
    system_keys = [r["key"] for r in result["systems"]["rel"]["correlations"]]
    assert "external:partial" in segment_keys
    assert "external:partial" not in system_keys
    assert any("external: partial lacks 1 of" in n for n in result["notes"])
    partial = _row(result["segments"]["rel"]["correlations"], "external:partial")
    oracle = _row(result["segments"]["rel"]["correlations"], "external:oracle")
    assert partial["responses"] == oracle["responses"] - 1


def test_the_pair_level_leaves_external_metrics_out_with_a_note(study):
    _, _, result = study
    assert all(not row.get("metric", "").startswith("external") for row in result["table"])
    assert any("left out of the pair level" in n and "external: oracle" in n
               for n in result["notes"])  # fmt: skip
