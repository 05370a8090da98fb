"""Leave one out: a system copied from the references is not scored against its own copy."""

import numpy as np
import pytest

from scoring.study.analysis.configs import StudyOptions, table_configs
from scoring.study.analysis.data import StudyData, StudyRef
from scoring.study.analysis.engine import run_study
from scoring.study.analysis.loo import apply_leave_one_out, coinciding_systems, normalise
from scoring.study.analysis.stats import compute_stats
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study

SPEC = SyntheticSpec(n_items=60, qualities=(0.3, 0.5, 0.7), n_pairs=6, copy_system=True)
OPTIONS = StudyOptions(
    unit_size=10, assignments=20, bootstrap=50, metrics=("bleu", "nist"), sweeps=False
)


def test_normalise_lowercases_collapses_spaces_and_strips_end_punctuation():
    assert normalise("  Hello,\tWORLD  !! ") == "hello, world"
    assert normalise("¿Qué tal?") == "qué tal"
    assert normalise("...") == ""


def test_coinciding_systems_finds_the_copy():
    shares = coinciding_systems(synthetic_study(SPEC))
    assert shares["human"] == 1.0
    assert all(shares[s] == 0.0 for s in ("sys0", "sys1", "sys2"))


def _bleu_of(result, system):
    rows = result["systems"]["quality"]["systems"]
    return next(r for r in rows if r["system"] == system)["metrics"]["bleu|all|n2"]


def test_the_copy_scores_perfect_bleu_unless_left_out():
    data = synthetic_study(SPEC)
    kept = run_study(data, OPTIONS)
    assert _bleu_of(kept, "human") == pytest.approx(100.0)
    assert kept["leave_one_out"] is None
    data.leave_one_out = True
    left = run_study(data, OPTIONS)
    assert _bleu_of(left, "human") < 60
    assert left["leave_one_out"] == {"human": {"items": 60, "fallbacks": 0}}
    for system in ("sys0", "sys1", "sys2"):  # the others keep every reference
        assert _bleu_of(left, system) == _bleu_of(kept, system)


def test_left_out_rows_equal_those_of_the_references_without_the_copy():
    data = synthetic_study(SPEC)
    data.leave_one_out = True
    configs = table_configs(OPTIONS)
    stats, _ = compute_stats(data, configs)
    apply_leave_one_out(data, configs, stats)
    refs = [[r for r in item if not r.original] for item in data.refs]
    reduced = StudyData(data.item_ids, refs, {"human": data.outputs["human"]}, [], {})
    expected, _ = compute_stats(reduced, [c for c in configs if c.refset == "all"])
    for key, rows in expected.items():
        assert np.allclose(stats[key]["human"], rows["human"], rtol=1e-12, atol=1e-12)


def test_an_output_whose_copy_was_its_only_positive_reference_falls_back_and_is_counted():
    refs = [[StudyRef("a b c", 1.0, True), StudyRef("x y", -0.5)], [StudyRef("d e f", 1.0, True)]]
    outputs = {"s": ["A b c.", "g h"], "t": ["a b", "d e"]}
    human = {"q": {("s", "t"): np.array([1.0, -1.0])}}
    data = StudyData(["1", "2"], refs, outputs, [("s", "t")], human, leave_one_out=True)
    configs = table_configs(StudyOptions(metrics=("bleu",)))
    stats, _ = compute_stats(data, configs)
    assert apply_leave_one_out(data, configs, stats) == {"s": {"items": 1, "fallbacks": 1}}
