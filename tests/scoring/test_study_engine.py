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
    assert result["unit_size"] == 5  # 32 items: 6 units of 5 per pair
    assert any("units of 5 item(s)" in note for note in result["notes"])


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
