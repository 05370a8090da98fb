"""The segment level and WMT's meta-evaluation of a study against direct computations."""

import numpy as np
import pytest
from scipy import stats as sps

from core.strict_json import json_safe
from scoring.metrics import get_metric
from scoring.study.analysis import segment_level as level_module
from scoring.study.analysis.configs import StudyOptions, system_configs
from scoring.study.analysis.data import ref_items
from scoring.study.analysis.engine import run_study
from scoring.study.analysis.metaeval import soft_pairwise_accuracy
from scoring.study.analysis.segments import segment_correlations
from scoring.study.analysis.stats import compute_stats
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study

OPTIONS = StudyOptions(
    unit_size=10, assignments=20, bootstrap=200, metrics=("bleu", "dbleu", "nist"), sweeps=False
)
QUALITIES = (0.2, 0.3, 0.45, 0.5, 0.6, 0.8)


def _data():
    spec = SyntheticSpec(n_items=60, qualities=QUALITIES, n_pairs=5, criteria=("rel", "inf"))
    data = synthetic_study(spec)
    data.system_scores["rel"]["sys1"] = data.system_scores["rel"]["sys1"].copy()
    data.system_scores["rel"]["sys1"][[0, 5]] = np.nan  # unrated responses
    data.outputs["sys2"] = list(data.outputs["sys2"])
    data.outputs["sys2"][7] = None  # a missing output
    return data


def _grid(data, cfg, systems):
    """Each response's score straight from the library: one statistics row, one score."""
    items, _ = ref_items(data, "all")
    metric = get_metric(cfg.metric, **cfg.metric_options)
    prepared = metric.prepare(items)
    grid = np.full((len(systems), len(items)), np.nan)
    for k, system in enumerate(systems):
        rows = metric.stats([h or "" for h in data.outputs[system]], prepared)
        for i, row in enumerate(rows):
            if data.outputs[system][i] is not None:
                grid[k, i] = float(metric.scores_from_stats(row))
    return grid


@pytest.fixture(scope="module")
def study():
    data = _data()
    return data, run_study(data, OPTIONS)


def test_segment_correlations_equal_direct_calls_on_per_response_scores(study):
    data, result = study
    level = result["segments"]["rel"]
    systems = level["systems"]
    assert systems == sorted(data.system_scores["rel"])
    human = np.vstack([data.system_scores["rel"][s] for s in systems])
    assert "statistics row" in level["score"]
    for cfg in system_configs(OPTIONS):
        grid = _grid(data, cfg, systems)
        grid = np.where(np.isfinite(human), grid, np.nan)
        row = next(r for r in level["correlations"] if r["key"] == cfg.key)
        assert (row["label"], row["signature"]) == (cfg.label, cfg.signature)
        ok = np.isfinite(grid) & np.isfinite(human)
        assert row["responses"] == ok.sum() == 6 * 60 - 3
        x, y = grid[ok], human[ok]
        assert row["none"]["pearson"]["value"] == pytest.approx(sps.pearsonr(x, y).statistic)
        assert row["none"]["spearman"]["value"] == pytest.approx(sps.spearmanr(x, y).statistic)
        assert row["none"]["kendall"]["value"] == pytest.approx(sps.kendalltau(x, y).statistic)
        direct = segment_correlations(grid, human, draws=200, seed=OPTIONS.seed)
        for c in direct:
            got = row[c.grouping][c.statistic]
            assert got["value"] == pytest.approx(c.value, abs=1e-12)
            assert (got["low"], got["high"]) == pytest.approx((c.low, c.high), abs=1e-12)
            assert got["draws"] == 200
            assert got["n_constant"] == c.n_constant


@pytest.mark.parametrize("metric_name", ["bleu", "dbleu"])
def test_a_response_score_is_the_metric_of_that_one_response(metric_name):
    """The engine's per-response score equals the library's score of a one-response corpus
    (that response against its item's references), computed by hand."""
    data = _data()
    cfg = next(c for c in system_configs(OPTIONS) if c.metric == metric_name)
    stats, _ = compute_stats(data, [cfg], 1, None)
    grid = level_module.response_grid(stats, cfg, ["sys2", "sys4"], data)
    items, _ = ref_items(data, "all")
    metric = get_metric(cfg.metric, **cfg.metric_options)
    for k, system in enumerate(["sys2", "sys4"]):
        for i in (3, 11):
            one = metric.stats([data.outputs[system][i]], metric.prepare([items[i]]))
            assert grid[k, i] == pytest.approx(float(metric.scores_from_stats(one.sum(axis=0))))
    assert np.isnan(grid[0, 7])  # sys2 has no output for item 7


def test_a_nist_response_keeps_the_test_sets_information_weights():
    """NIST's n-gram information comes from all the study's references, so a response's
    score is its row of the whole test set, not a one-response corpus."""
    data = _data()
    cfg = next(c for c in system_configs(OPTIONS) if c.metric == "nist")
    stats, _ = compute_stats(data, [cfg], 1, None)
    grid = level_module.response_grid(stats, cfg, ["sys4"], data)
    items, _ = ref_items(data, "all")
    metric = get_metric("nist")
    rows = metric.stats(data.outputs["sys4"], metric.prepare(items))
    alone = metric.stats([data.outputs["sys4"][3]], metric.prepare([items[3]]))
    assert grid[0, 3] == pytest.approx(float(metric.scores_from_stats(rows[3])))
    assert grid[0, 3] != pytest.approx(float(metric.scores_from_stats(alone[0])))


def test_system_level_pairwise_accuracy_is_a_hand_count(study):
    _, result = study
    level = result["systems"]["rel"]
    human = [row["human"]["value"] for row in level["systems"]]
    for corr in level["correlations"]:
        metric = [row["metrics"][corr["key"]] for row in level["systems"]]
        agree = total = 0
        for a in range(len(human)):
            for b in range(a + 1, len(human)):
                total += 1
                dm, dh = metric[a] - metric[b], human[a] - human[b]
                agree += np.sign(dm) == np.sign(dh)
        assert corr["pairwise_accuracy"]["value"] == pytest.approx(agree / total)
        assert corr["pairwise_accuracy"]["pairs"] == total == 15
        acc = corr["pairwise_accuracy"]
        assert acc["low"] <= acc["value"] <= acc["high"]
        assert corr["acc_eq"]["value"] >= acc["value"]  # ε = 0 is one of the choices
        assert corr["acc_eq"]["epsilon"] >= 0


def test_spa_is_that_of_the_per_response_scores_on_the_system_tables_items(study):
    data, result = study
    level = result["systems"]["rel"]
    systems = [row["system"] for row in level["systems"]]
    human = np.vstack([data.system_scores["rel"][s] for s in systems])
    shared = np.isfinite(human).all(axis=0)
    shared[7] = False  # sys2 has no output there
    assert shared.sum() == level["items"]
    for corr in level["correlations"]:
        cfg = next(c for c in system_configs(OPTIONS) if c.key == corr["key"])
        grid = _grid(data, cfg, systems)
        spa = soft_pairwise_accuracy(
            np.where(shared, grid, np.nan), np.where(shared, human, np.nan), seed=OPTIONS.seed
        )
        assert corr["spa"]["value"] == pytest.approx(spa.value)
        assert corr["spa"]["permutations"] == 1000


def test_clusters_rank_every_metric_at_both_levels(study):
    _, result = study
    keys = {c.key for c in system_configs(OPTIONS)}
    for clusters in (result["systems"]["rel"]["clusters"], result["segments"]["rel"]["clusters"]):
        ranks = clusters["ranks"]
        assert {r["key"] for r in ranks} == keys
        assert ranks[0]["rank"] == 1
        assert [r["rank"] for r in ranks] == sorted(r["rank"] for r in ranks)
        correlations = [r["correlation"] for r in ranks]
        assert correlations == sorted(correlations, reverse=True)
    assert result["systems"]["rel"]["clusters"]["level"] == "system"
    assert result["segments"]["rel"]["clusters"]["level"] == "none"


def test_every_criterion_has_its_segment_level(study):
    _, result = study
    assert set(result["segments"]) == {"rel", "inf"}


def test_pairwise_campaign_studies_have_no_segment_level_and_say_so():
    data = _data()
    data.system_scores = {}
    result = run_study(data, OPTIONS)
    assert result["segments"] == {}
    assert result["systems"] == {}
    assert any("no segment level" in note for note in result["notes"])


def test_kendall_over_all_responses_past_its_budget_has_its_value_alone(monkeypatch):
    monkeypatch.setattr(level_module, "KENDALL_BUDGET", 1000)
    data = _data()
    result = run_study(data, OPTIONS)
    row = result["segments"]["rel"]["correlations"][0]
    kendall = row["none"]["kendall"]
    assert kendall["draws"] == 0 and kendall["low"] is None and np.isfinite(kendall["value"])
    assert row["item"]["kendall"]["draws"] == 200
    assert any("without an interval" in note for note in result["notes"])
    # An interval left out by choice is not an undefined value (those warn the reader).
    assert json_safe(result)[1] == 0


def test_segment_draws_are_capped_by_the_budget(monkeypatch):
    monkeypatch.setattr(level_module, "SEGMENT_BUDGET", 100 * 200)
    data = _data()
    row = run_study(data, OPTIONS)["segments"]["rel"]["correlations"][0]
    for grouping in ("none", "item"):
        assert row[grouping]["pearson"]["draws"] == level_module.MIN_DRAWS
    assert row["item"]["spearman"]["draws"] == row["item"]["kendall"]["draws"] == 100
    assert row["none"]["kendall"]["draws"] == row["none"]["spearman"]["draws"] == 200  # theirs
    monkeypatch.setattr(level_module, "RANK_BUDGET", 100 * 150)
    result = run_study(data, OPTIONS)
    row = result["segments"]["rel"]["correlations"][0]
    assert row["none"]["spearman"]["draws"] == level_module.MIN_DRAWS
    assert any("use 100 bootstrap draws (not 200" in note for note in result["notes"])


def test_no_note_on_draws_when_every_draw_asked_for_was_made(study):
    _, result = study
    assert not any("bootstrap draws (not" in note for note in result["notes"])
    assert level_module.segment_draws(50, 200) == 200
    assert level_module.segment_draws(10**9, 200) == level_module.MIN_DRAWS


def test_the_run_reports_progress_per_criterion_of_the_segment_level():
    heard = []
    run_study(_data(), OPTIONS, lambda done, total, message: heard.append((done, message)))
    steps = [(d, m) for d, m in heard if m.startswith("Segment level")]
    assert [m for _, m in steps] == [
        "Segment level and meta-evaluation — rel",
        "Segment level and meta-evaluation — inf",
    ]
    assert steps[0][0] < steps[1][0] <= 100
    assert [d for d, _ in heard] == sorted(d for d, _ in heard)  # never goes back
