"""Segment-level correlations: against scipy on hand-made grids with ties, constant items and
missing cells, the bootstrap's weighted draws against scipy on the resampled responses, and
(slow) the intervals' coverage of a known population correlation."""

import numpy as np
import pytest
from scipy import stats as sps

from scoring.study.analysis.segments import (
    grid_from_flat,
    item_correlations,
    segment_correlations,
)
from scoring.study.analysis.systems import _draw_counts
from scoring.study.analysis.units import item_draw_counts

NAN = np.nan
SCIPY = {"pearson": sps.pearsonr, "spearman": sps.spearmanr, "kendall": sps.kendalltau}

# 3 systems × 6 items, human scores on a coarse scale (ties), NaN for missing cells.
HUMAN = np.array(
    [
        [1.0, 2.0, 3.0, 2.0, 4.0, 1.0],
        [2.0, 2.0, 1.0, 2.0, 4.0, NAN],
        [3.0, 1.0, 2.0, 2.0, 1.0, 5.0],
    ]
)
METRIC = np.array(
    [
        [0.1, 0.5, 0.9, 0.3, 0.2, NAN],
        [0.4, 0.5, 0.2, 0.1, 0.7, 0.6],
        [0.4, 0.1, 0.5, 0.8, 0.2, 0.3],
    ]
)
# Item 3: the humans are constant (2, 2, 2). Item 5: one response only (system 3's).
# Item 4: the metric ties two systems (0.2, 0.2) but varies.


def _by(results):
    return {(r.grouping, r.statistic): r for r in results}


def test_no_grouping_equals_scipy_over_all_responses():
    ok = np.isfinite(METRIC) & np.isfinite(HUMAN)
    found = _by(segment_correlations(METRIC, HUMAN, draws=50, seed=1))
    for name, test in SCIPY.items():
        r = found["none", name]
        assert r.value == pytest.approx(test(METRIC[ok], HUMAN[ok]).statistic, abs=1e-12)
        assert (r.n_responses, r.n_items, r.n_groups, r.n_constant, r.n_too_few) == (
            16,
            6,
            6,
            0,
            0,
        )
        assert r.low <= r.value <= r.high


def test_item_grouped_averages_scipy_per_item_and_counts_what_it_drops():
    found = _by(segment_correlations(METRIC, HUMAN, draws=50, seed=1))
    for name, test in SCIPY.items():
        per_item = []
        for i in (0, 1, 2, 4):  # item 3 is constant for the humans, item 5 has one response
            ok = np.isfinite(METRIC[:, i]) & np.isfinite(HUMAN[:, i])
            per_item.append(test(METRIC[ok, i], HUMAN[ok, i]).statistic)
        r = found["item", name]
        assert r.value == pytest.approx(np.mean(per_item), abs=1e-12)
        assert (r.n_groups, r.n_constant, r.n_too_few) == (4, 1, 1)


def test_item_correlations_are_nan_for_constant_or_lonely_items_only():
    for name in SCIPY:
        values = item_correlations(METRIC, HUMAN, name)
        assert np.isnan(values[[3, 5]]).all()
        assert np.isfinite(values[[0, 1, 2, 4]]).all()
    # A constant metric side too, and a batch axis in front.
    metric = METRIC.copy()
    metric[:, 0] = 0.5
    batch = item_correlations(np.stack([METRIC, metric]), np.stack([HUMAN, HUMAN]), "kendall")
    assert np.isnan(batch[1, 0]) and np.isfinite(batch[0, 0])
    assert np.array_equal(batch[0], item_correlations(METRIC, HUMAN, "kendall"), equal_nan=True)


def _resampled(metric, human, counts):
    """The responses of a draw, each item repeated as often as it was drawn."""
    ok = np.isfinite(metric) & np.isfinite(human)
    items = np.flatnonzero(ok.any(axis=0))
    xs, ys = [], []
    for k, item in enumerate(items):
        rows = np.flatnonzero(ok[:, item])
        for _ in range(int(counts[k])):
            xs += list(metric[rows, item])
            ys += list(human[rows, item])
    return np.array(xs), np.array(ys)


@pytest.mark.parametrize("tied", [True, False])
def test_bootstrap_draws_equal_scipy_on_the_resampled_responses(tied):
    """Percentiles of the draws, recomputed one draw at a time with scipy on the resampled
    responses (draws from the shared generator: the same seed, the same items). Metric
    scores with ties, and continuous ones (whose ranks take a shortcut)."""
    rng = np.random.default_rng(5)
    human = np.round(rng.normal(size=(4, 12)) * 2) / 2
    metric = human + rng.normal(size=(4, 12))
    metric = np.round(metric, 1) if tied else metric
    metric[1, 4] = human[2, 7] = NAN
    draws, seed = 30, 11
    counts = next(item_draw_counts(12, draws, seed))
    found = _by(segment_correlations(metric, human, draws=draws, seed=seed))
    for name, test in SCIPY.items():
        values = [test(*_resampled(metric, human, c)).statistic for c in counts]
        low, high = np.percentile(values, [2.5, 97.5])
        assert found["none", name].low == pytest.approx(low, abs=1e-10)
        assert found["none", name].high == pytest.approx(high, abs=1e-10)


def test_item_grouped_draws_are_weighted_means_of_the_items_correlations():
    draws, seed = 40, 3
    counts = next(item_draw_counts(6, draws, seed))
    found = _by(segment_correlations(METRIC, HUMAN, draws=draws, seed=seed))
    values = item_correlations(METRIC, HUMAN, "pearson")
    kept = np.isfinite(values)
    means = counts[:, kept] @ values[kept] / counts[:, kept].sum(axis=1)
    low, high = np.percentile(means[np.isfinite(means)], [2.5, 97.5])
    assert (found["item", "pearson"].low, found["item", "pearson"].high) == pytest.approx(
        (low, high)
    )


def test_deterministic_given_the_seed():
    one = segment_correlations(METRIC, HUMAN, draws=60, seed=7)
    assert one == segment_correlations(METRIC, HUMAN, draws=60, seed=7)
    assert one != segment_correlations(METRIC, HUMAN, draws=60, seed=8)


def test_draw_counts_do_not_depend_on_the_chunk_and_match_the_system_table():
    whole = next(item_draw_counts(37, 25, 5))
    assert np.array_equal(whole, np.vstack(list(item_draw_counts(37, 25, 5, chunk=7))))
    assert np.array_equal(whole, _draw_counts(37, 25, 5))
    assert (whole.sum(axis=1) == 37).all()


def test_grid_from_flat():
    grid, systems, items = grid_from_flat(
        np.array([1.0, 2.0, 3.0]), ["i2", "i1", "i2"], ["b", "a", "a"]
    )
    assert systems == ["a", "b"] and items == ["i1", "i2"]
    assert np.array_equal(grid, [[2.0, 3.0], [NAN, 1.0]], equal_nan=True)
    with pytest.raises(ValueError, match="more than once"):
        grid_from_flat(np.array([1.0, 2.0]), ["i", "i"], ["a", "a"])


def test_rejects_unknown_names_and_shapes():
    with pytest.raises(ValueError, match="unknown statistic"):
        segment_correlations(METRIC, HUMAN, statistics=("pearsonr",))
    with pytest.raises(ValueError, match="unknown grouping"):
        segment_correlations(METRIC, HUMAN, groupings=("system",), draws=5)
    with pytest.raises(ValueError, match="one shape"):
        segment_correlations(METRIC, HUMAN[:, :3])


@pytest.mark.slow
def test_intervals_cover_the_population_correlation():
    """400 simulated studies of 60 items × 5 systems. Without grouping, x = u + e and
    y = u + f (u an item effect, e, f noise, all standard normal): the population Pearson is
    1/2, and responses of one item are correlated, so only resampling items covers it. Item
    grouped: within an item, (x, y) is bivariate normal with ρ = 0.6 around item shifts, and a
    sample's Kendall τ is unbiased for the population τ = (2/π) asin ρ.

    Coverage should be ≈ 0.95 (0.945 for both over 600 other studies); binomial SE over 400
    studies ≈ 0.011, so [0.915, 0.975] (≥ 2.6 SE each side) fails by chance with probability
    ≈ 1% for the two checks together."""
    rng = np.random.default_rng(2024)
    tau = 2 / np.pi * np.arcsin(0.6)
    hits = {"none": 0, "item": 0}
    n = 400
    for k in range(n):
        u = rng.normal(size=(1, 60))
        metric = u + rng.normal(size=(5, 60))
        human = u + rng.normal(size=(5, 60))
        found = _by(segment_correlations(metric, human, statistics=("pearson",), draws=400, seed=k))
        hits["none"] += found["none", "pearson"].low <= 0.5 <= found["none", "pearson"].high
        s, t = rng.normal(size=(2, 5, 60))
        metric = rng.normal(size=(1, 60)) + s
        human = rng.normal(size=(1, 60)) + 0.6 * s + 0.8 * t
        found = _by(
            segment_correlations(
                metric, human, statistics=("kendall",), groupings=("item",), draws=400, seed=k
            )
        )
        hits["item"] += found["item", "kendall"].low <= tau <= found["item", "kendall"].high
    for grouping, count in hits.items():
        assert 0.915 <= count / n <= 0.975, (grouping, count / n)
