"""Kendall's τ of bootstrap draws from weighted counts is scipy's on the expanded draws, bit
for bit."""

import numpy as np
import pytest
from scipy import stats as sps

from scoring.study.analysis import kendall_draws
from scoring.study.analysis.kendall_draws import WeightedKendall
from scoring.study.analysis.segments import _Draws, _responses, segment_correlations
from scoring.study.analysis.units import item_draw_counts


def _grids(seed: int, systems: int = 8, items: int = 120, levels: int = 13):
    """A metric with ties (zeros, repeated values) and human means of three 1–5 ratings."""
    rng = np.random.default_rng(seed)
    metric = rng.normal(size=(systems, items))
    metric[rng.random(metric.shape) < 0.2] = 0.0
    metric[:, ::9] = np.round(metric[:, ::9], 1)
    human = 1 + np.round(rng.random((systems, items)) * (levels - 1)) / 3
    metric[rng.random(metric.shape) < 0.05] = np.nan
    human[rng.random(human.shape) < 0.05] = np.nan
    return metric, human


def _expanded(x, y, item, counts):
    out = []
    for row in counts.astype(np.int64):
        picked = np.repeat(np.arange(item.size), row[item])
        out.append(sps.kendalltau(x[picked], y[picked]).statistic)
    return np.array(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("swap", [False, True])
def test_weighted_kendall_is_scipy_on_the_expanded_draws_bit_for_bit(seed, swap):
    metric, human = _grids(seed)
    if swap:  # the side with fewer values on x: the levels come from x
        metric, human = human, metric
    r = _responses(metric, human)
    tau = WeightedKendall(r.x, r.y, r.item, r.n_items)
    assert tau.usable and tau.swapped == swap
    for counts in item_draw_counts(r.n_items, 60, seed, 25):
        mine = tau(counts)
        expected = _expanded(r.x, r.y, r.item, counts)
        assert np.array_equal(mine, expected, equal_nan=True)
        assert mine.tobytes() == expected.tobytes()


def test_constant_draws_are_undefined_like_scipys():
    x = np.array([0.1, 0.2, 0.3, 0.4])
    y = np.array([1.0, 2.0, 1.0, 2.0])
    item = np.array([0, 1, 2, 3])
    counts = np.array([[4, 0, 0, 0], [2, 0, 2, 0], [1, 1, 1, 1], [0, 3, 0, 1]], dtype=float)
    expected = _expanded(x, y, item, counts)
    assert np.isnan(expected[0]) and np.isnan(expected[3])
    mine = WeightedKendall(x, y, item, 4)(counts)
    assert mine.tobytes() == expected.tobytes()


def test_draws_use_the_weighted_form_and_fall_back_past_its_levels(monkeypatch):
    metric, human = _grids(5)
    draws = _Draws(_responses(metric, human))
    counts = next(item_draw_counts(metric.shape[1], 40, 3, 40))
    weighted = draws.kendall(counts)
    assert draws.weighted_kendall is not None and draws.weighted_kendall.usable
    assert weighted.tobytes() == draws.expanded_kendall(counts).tobytes()
    monkeypatch.setattr(kendall_draws, "MAX_LEVELS", 2)
    fallback = _Draws(_responses(metric, human))
    assert fallback.kendall(counts).tobytes() == weighted.tobytes()
    assert fallback.weighted_kendall is not None and not fallback.weighted_kendall.usable


def test_segment_correlations_keep_their_intervals(monkeypatch):
    """The whole interval is the same with either form (one draw chunk and several)."""
    metric, human = _grids(7, systems=10, items=150)
    fast = segment_correlations(metric, human, statistics=("kendall",), draws=130, seed=4)
    monkeypatch.setattr(kendall_draws, "MAX_LEVELS", 0)
    slow = segment_correlations(metric, human, statistics=("kendall",), draws=130, seed=4)
    assert fast == slow
