"""The study as a whole: several criteria, a unit size fitted to pilots, a JSON-able result."""

import json

import numpy as np
import pytest

from scoring.study.analysis.configs import StudyOptions
from scoring.study.analysis.engine import StudyInputError, run_study
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study

OPTIONS = StudyOptions(
    unit_size=10, assignments=30, bootstrap=60, metrics=("bleu", "dbleu"), sweeps=True
)


def _data(n_items=100, criteria=("relevance", "informativeness")):
    return synthetic_study(SyntheticSpec(n_items=n_items, n_pairs=6, criteria=criteria))


def test_criteria_side_by_side_share_units_and_the_primary_keeps_the_old_keys():
    data = _data()
    result = run_study(data, OPTIONS)
    assert list(result["criteria"]) == ["relevance", "informativeness"]
    assert result["criterion"] == "relevance"
    assert result["table"] == result["criteria"]["relevance"]["table"]
    assert {r["criterion"] for r in result["criteria"]["informativeness"]["table"]} == {
        "informativeness"
    }
    assert result["criteria"]["informativeness"]["n_units"] == result["n_units"]
    assert set(result["sweeps"]) == {"theta", "order", "unit_size"}
    # A criterion repeated under another name gives the same numbers.
    data.human["copy"] = data.human["relevance"]
    again = run_study(data, OPTIONS)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "criterion"} for r in rows]
    assert strip(again["criteria"]["copy"]["table"]) == strip(result["table"])


def test_an_item_judged_in_one_criterion_only_is_left_out_of_its_pair():
    data = _data()
    pair = data.pairs[0]
    data.human["informativeness"][pair] = data.human["informativeness"][pair].copy()
    data.human["informativeness"][pair][:4] = np.nan
    assert data.pair_items(pair).size == 96


def test_a_pilot_gets_a_smaller_unit_size_with_a_note():
    result = run_study(_data(n_items=32), StudyOptions(metrics=("bleu",), sweeps=False))
    assert result["unit_size"] == 2  # 32 items: 16 units of 2 per pair (at least 10)
    assert any("units of 2 item(s)" in note for note in result["notes"])
    assert result["warnings"] == []  # every pair has its 10 units: nothing to warn of


def test_m_100_on_100_items_is_fitted_down_and_a_thin_design_is_warned_of():
    """The paper's M = 100 on exactly 100 items gave one unit per pair: 10 observations over
    the pairs, and all 1,000 assignments the same. M is fitted to give each pair 10 units; a
    pair that cannot have 10 even at M = 1, and fewer than 5 systems, are warned of."""
    result = run_study(_data(n_items=100), StudyOptions(metrics=("bleu",), sweeps=False))
    assert result["unit_size"] == 10 and result["n_units"] >= 10
    fitted = "M = 100 would give a pair of 100 usable items 1 unit(s)"
    assert any(fitted in note for note in result["notes"])
    assert result["warnings"] == []
    tiny = run_study(_data(n_items=6), StudyOptions(metrics=("bleu",), sweeps=False))
    assert tiny["unit_size"] == 1
    (warning,) = tiny["warnings"]  # seven systems: enough for the system level
    assert "6 system pair(s) have fewer than 10 units (the fewest: sys0–sys1, 6)" in warning
    few = _data(n_items=40)
    few.pairs = few.pairs[:2]  # sys0, sys1, sys2
    few.system_scores = {}
    assert run_study(few, StudyOptions(metrics=("bleu",), sweeps=False))["warnings"] == [
        "only 3 systems: a system-level correlation rests on 3 points and the pair level on 3 "
        "pairs; read them as indications, not measurements"
    ]


def test_a_study_without_any_usable_item_is_refused():
    data = _data(n_items=20)
    for by_pair in data.human.values():
        for pair in by_pair:
            by_pair[pair] = np.full(20, np.nan)
    with pytest.raises(StudyInputError, match="no system pair"):
        run_study(data, StudyOptions(metrics=("bleu",), sweeps=False))


def test_a_criterion_without_a_pair_is_refused():
    data = _data()
    del data.human["informativeness"][data.pairs[1]]
    with pytest.raises(StudyInputError, match="informativeness"):
        run_study(data, OPTIONS)


@pytest.mark.slow  # three whole studies: make test and CI, not test-fast
def test_the_result_is_json_and_deterministic():
    data = _data()
    result = run_study(data, OPTIONS)
    text = json.dumps({k: v for k, v in result.items() if k != "timings"}, sort_keys=True)
    again = run_study(data, OPTIONS)
    assert json.dumps({k: v for k, v in again.items() if k != "timings"}, sort_keys=True) == text
    other = run_study(data, StudyOptions(**{**OPTIONS.as_dict(), "seed": 1}))
    assert other["table"][0]["rho"]["low"] != result["table"][0]["rho"]["low"]
