"""The system-level table: means, corpus scores and correlations over systems against scipy."""

import numpy as np
import pytest
from scipy import stats as sps

from scoring.metrics import get_metric
from scoring.study.analysis.configs import StudyOptions, system_configs
from scoring.study.analysis.data import ref_items
from scoring.study.analysis.engine import run_study
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study

OPTIONS = StudyOptions(
    unit_size=10, assignments=20, bootstrap=200, metrics=("bleu", "dbleu", "nist"), sweeps=False
)
QUALITIES = (0.2, 0.3, 0.45, 0.5, 0.6, 0.8)


def _data():
    spec = SyntheticSpec(n_items=80, qualities=QUALITIES, n_pairs=5, criteria=("rel", "inf"))
    data = synthetic_study(spec)
    data.system_scores["rel"]["sys1"] = data.system_scores["rel"]["sys1"].copy()
    data.system_scores["rel"]["sys1"][[0, 5]] = np.nan  # not shared by every system
    data.outputs["sys2"] = list(data.outputs["sys2"])
    data.outputs["sys2"][7] = None
    return data


def test_system_level_values_equal_a_direct_computation_and_scipy():
    data = _data()
    result = run_study(data, OPTIONS)
    assert list(result["systems"]) == ["rel", "inf"]
    level = result["systems"]["rel"]
    shared = np.array([i for i in range(80) if i not in (0, 5, 7)])
    assert level["items"] == shared.size
    systems = [row["system"] for row in level["systems"]]
    assert systems == sorted(data.system_scores["rel"])
    humans = np.array([data.system_scores["rel"][s][shared].mean() for s in systems])
    assert [r["human"]["value"] for r in level["systems"]] == pytest.approx(humans, abs=1e-12)
    for row in level["systems"]:
        assert row["human"]["low"] <= row["human"]["value"] <= row["human"]["high"]
    for cfg in system_configs(OPTIONS):
        # The corpus score of each system on the shared items, straight from the metric.
        items, _ = ref_items(data, "all")
        metric = get_metric(cfg.metric, **cfg.metric_options)
        prepared = metric.prepare(items)
        scores = []
        for s in systems:
            rows = metric.stats([h or "" for h in data.outputs[s]], prepared)
            scores.append(float(metric.scores_from_stats(rows[shared].sum(axis=0))))
        got = [row["metrics"][cfg.key] for row in level["systems"]]
        assert got == pytest.approx(scores, rel=1e-9)
        corr = next(c for c in level["correlations"] if c["key"] == cfg.key)
        expected = {
            "pearson": sps.pearsonr(scores, humans).statistic,
            "spearman": sps.spearmanr(scores, humans).statistic,
            "kendall": sps.kendalltau(scores, humans).statistic,
        }
        for name, value in expected.items():
            assert corr[name]["value"] == pytest.approx(value, abs=1e-12)
            assert corr[name]["low"] <= corr[name]["high"]


@pytest.mark.slow  # three whole studies: make test and CI, not test-fast
def test_system_level_is_deterministic_and_empty_without_system_scores():
    data = _data()
    first = run_study(data, OPTIONS)["systems"]
    assert run_study(data, OPTIONS)["systems"] == first
    data.system_scores = {}
    assert run_study(data, OPTIONS)["systems"] == {}


def test_a_study_of_systems_only_needs_no_pairs():
    data = _data()
    data.pairs = []
    data.human = {"rel": {}, "inf": {}}
    result = run_study(data, OPTIONS)
    assert set(result["systems"]) == {"rel", "inf"} and "table" not in result
