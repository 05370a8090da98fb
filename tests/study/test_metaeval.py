"""Pairwise accuracy, acc_eq and SPA: hand-counted pairs, brute force over every ε, and exact
permutation p-values enumerated here against the engine's exact and Monte-Carlo modes."""

import itertools

import numpy as np
import pytest

from scoring.study.analysis.metaeval import (
    PairCounts,
    item_grouped_tie_calibrated_accuracy,
    pair_counts,
    paired_permutation_p,
    pairwise_accuracy,
    soft_pairwise_accuracy,
    tie_calibrated_accuracy,
)

NAN = np.nan


def test_pair_counts_by_hand():
    #            C    C    D    T_h  T_m  T_hm D (opposite signs)
    dm = np.array([0.5, -2.0, 1.0, 0.3, 0.0, 0.0, -0.1])
    dh = np.array([1.0, -1.0, -1.0, 0.0, 2.0, 0.0, 3.0])
    assert pair_counts(dm, dh) == PairCounts(2, 2, 1, 1, 1)
    assert pair_counts(dm, dh).accuracy == pytest.approx(3 / 7)
    # ε = 0.3 ties the metric on the 0.3 and −0.1 pairs too: T_h → T_hm, D → T_m.
    assert pair_counts(dm, dh, epsilon=0.3) == PairCounts(2, 1, 0, 2, 2)


def test_pairwise_accuracy_by_hand():
    # Pairs (0,1) Δm 1 Δh 1 C; (0,2) 1, 3 C; (0,3) 2, 3 C; (1,2) 0, 2 T_m; (1,3) 1, 2 C;
    # (2,3) 1, 0 T_h. C = 4, D = 0, T_h = 1, T_m = 1, T_hm = 0: 4 of 6 pairs agree.
    found = pairwise_accuracy(np.array([3.0, 2.0, 2.0, 1.0]), np.array([4.0, 3.0, 1.0, 1.0]))
    assert found.counts == PairCounts(4, 0, 1, 1, 0)
    assert found.value == pytest.approx(4 / 6)
    assert found.n_systems == 4
    # A system without a human score is left out.
    found = pairwise_accuracy(np.array([3.0, 1.0, 2.0]), np.array([1.0, NAN, 2.0]))
    assert found.counts == PairCounts(0, 1, 0, 0, 0) and found.n_systems == 2


def test_acc_eq_chooses_the_epsilon_that_ties_near_equal_systems():
    # Pairs: (0,1) Δm 0.1, Δh 0 → T_h at ε = 0, T_hm from ε = 0.1; the other five are
    # concordant with |Δm| ≥ 0.9 ((1,2): 0.9, 1; (0,2): 1, 1; (2,3): 1, 1; (1,3): 1.9, 2;
    # (0,3): 2, 2). ε = 0: 5/6; ε = 0.1: 6/6; ε = 0.9: (1,2) becomes T_m, 5/6.
    metric, human = np.array([3.0, 2.9, 2.0, 1.0]), np.array([2.0, 2.0, 1.0, 0.0])
    found = tie_calibrated_accuracy(metric, human)
    assert found.value == 1.0
    assert found.epsilon == pytest.approx(0.1)
    assert found.counts == PairCounts(5, 0, 0, 0, 1)
    # Without human ties no ε beats 0, and the smallest of equal values is kept.
    found = tie_calibrated_accuracy(np.array([3.0, 2.0, 1.0]), np.array([1.0, 2.0, 3.0]))
    assert (found.value, found.epsilon) == (0.0, 0.0)


def _brute_acc_eq(pairs_by_group):
    """max over ε ∈ {0} ∪ {|Δm|} of the mean over groups of (C + T_hm) / pairs."""
    candidates = {0.0} | {abs(float(d)) for dm, _ in pairs_by_group for d in dm}
    best = max(
        (np.mean([pair_counts(dm, dh, e).accuracy for dm, dh in pairs_by_group]), -e)
        for e in candidates
    )
    return best[0], -best[1]


def _pairs(metric, human):
    i, j = np.triu_indices(metric.size, k=1)
    ok = np.isfinite(metric[i] - metric[j]) & np.isfinite(human[i] - human[j])
    return (metric[i] - metric[j])[ok], (human[i] - human[j])[ok]


@pytest.mark.parametrize("seed", range(5))
def test_acc_eq_equals_brute_force_over_every_epsilon(seed):
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, size=(6, 9)).astype(float)
    metric = np.round(human + rng.normal(size=(6, 9)), 1)
    metric[rng.random((6, 9)) < 0.15] = NAN
    metric[:5, 8] = NAN  # an item with one response: no pair
    found = tie_calibrated_accuracy(metric[:, 0], human[:, 0])
    value, epsilon = _brute_acc_eq([_pairs(metric[:, 0], human[:, 0])])
    assert (found.value, found.epsilon) == pytest.approx((value, epsilon))
    grouped = item_grouped_tie_calibrated_accuracy(metric, human)
    groups = [_pairs(metric[:, k], human[:, k]) for k in range(9)]
    groups = [g for g in groups if g[0].size]
    value, epsilon = _brute_acc_eq(groups)
    assert (grouped.value, grouped.epsilon) == pytest.approx((value, epsilon))
    assert grouped.n_groups == len(groups) and grouped.n_groups + grouped.n_dropped == 9
    assert grouped.counts == pair_counts(
        np.concatenate([g[0] for g in groups]), np.concatenate([g[1] for g in groups]), epsilon
    )


def test_item_grouped_acc_eq_by_hand():
    # Item 0: pairs (0,1) Δm 1 Δh 1 C; (0,2) 1, 0 T_h; (1,2) 0, −1 T_m → 1/3 at ε = 0.
    # Item 1: (0,1) 0, 0 T_hm; (0,2) −2, −1 C; (1,2) −2, −1 C → 3/3 at ε = 0.
    # Item 2: one response, dropped. At ε = 1, item 0 has (0,1) T_m, (0,2) T_hm, (1,2) T_m →
    # 1/3 and item 1 is unchanged: the same mean, so the smaller ε = 0 is kept.
    metric = np.array([[2.0, 1.0, 5.0], [1.0, 1.0, NAN], [1.0, 3.0, NAN]])
    human = np.array([[2.0, 1.0, 1.0], [1.0, 1.0, NAN], [2.0, 2.0, NAN]])
    found = item_grouped_tie_calibrated_accuracy(metric, human)
    assert found.value == pytest.approx((1 / 3 + 1) / 2)
    assert found.epsilon == 0.0
    assert (found.n_groups, found.n_dropped) == (2, 1)
    assert found.counts == PairCounts(3, 0, 1, 1, 1)


def _exact_p(d):
    """One-sided exact p of mean(d) > 0: the share of all 2^n sign vectors with Σ ≥ observed."""
    observed = d.sum()
    sums = [np.dot(s, d) for s in itertools.product((1.0, -1.0), repeat=d.size)]
    return np.mean(np.array(sums) >= observed - 1e-9)


SEGMENT_HUMAN = np.array(
    [
        [3.0, 2.0, 4.0, 1.0, 3.0, 2.0, 5.0, 2.0],
        [2.0, 2.0, 3.0, 2.0, 1.0, 2.0, 4.0, 1.0],
        [1.0, 3.0, 3.0, 1.0, 2.0, 1.0, 4.0, 3.0],
    ]
)
SEGMENT_METRIC = np.array(
    [
        [0.7, 0.4, 0.9, 0.1, 0.5, 0.5, 0.8, 0.2],
        [0.6, 0.5, 0.6, 0.3, 0.2, 0.4, 0.9, 0.3],
        [0.2, 0.6, 0.6, 0.2, 0.4, 0.1, 0.7, NAN],
    ]
)


def _spa_by_enumeration(metric, human):
    gaps = []
    for i, j in itertools.combinations(range(metric.shape[0]), 2):
        ok = np.isfinite(metric[[i, j]]).all(axis=0) & np.isfinite(human[[i, j]]).all(axis=0)
        p_h = _exact_p(human[i, ok] - human[j, ok])
        p_m = _exact_p(metric[i, ok] - metric[j, ok])
        gaps.append(abs(p_h - p_m))
    return 1 - np.mean(gaps)


def test_spa_exact_equals_enumeration_and_monte_carlo_is_within_its_error():
    expected = _spa_by_enumeration(SEGMENT_METRIC, SEGMENT_HUMAN)
    exact = soft_pairwise_accuracy(SEGMENT_METRIC, SEGMENT_HUMAN, exact=True)
    assert exact.value == pytest.approx(expected, abs=1e-12)
    assert exact.n_pairs == 3 and exact.permutations == 2**8
    # Each Monte-Carlo p has SE ≤ 0.5/√k; SPA averages 3 gaps of two p-values: |error| ≤
    # 2 · 0.5/√k ≈ 0.0079 at k = 4,000 per gap, 4 SE = 0.032 (a false failure < 1e-4).
    mc = soft_pairwise_accuracy(SEGMENT_METRIC, SEGMENT_HUMAN, permutations=4000, seed=3)
    assert mc.value == pytest.approx(expected, abs=0.032)
    assert np.nanmax(np.abs(mc.p_human - exact.p_human)) < 0.032
    assert np.isnan(exact.p_human[1, 0]) and np.isfinite(exact.p_human[0, 1])


def test_permutation_p_ignores_missing_segments():
    d = np.array([[1.0, 0.5], [2.0, NAN], [-0.5, -1.0], [NAN, 2.0], [0.25, 0.0]])
    p = paired_permutation_p(d, exact=True)
    assert p[0] == pytest.approx(_exact_p(np.array([1.0, 2.0, -0.5, 0.25])))
    assert p[1] == pytest.approx(_exact_p(np.array([0.5, -1.0, 2.0, 0.0])))
    assert np.isnan(paired_permutation_p(np.full((3, 1), NAN), exact=True)[0])


def test_spa_is_one_for_a_metric_that_orders_segments_like_the_humans():
    scaled = 2 * SEGMENT_HUMAN + 1  # the same differences up to scale: the same p-values
    assert soft_pairwise_accuracy(scaled, SEGMENT_HUMAN, permutations=300).value == 1.0
    reversed_ = soft_pairwise_accuracy(-SEGMENT_HUMAN, SEGMENT_HUMAN, exact=True)
    assert reversed_.value < 0.5


def test_spa_is_deterministic_given_the_seed():
    one = soft_pairwise_accuracy(SEGMENT_METRIC, SEGMENT_HUMAN, permutations=200, seed=1)
    two = soft_pairwise_accuracy(SEGMENT_METRIC, SEGMENT_HUMAN, permutations=200, seed=1)
    assert one.value == two.value
    assert np.array_equal(one.p_metric, two.p_metric, equal_nan=True)


def test_exact_mode_refuses_many_segments():
    with pytest.raises(ValueError, match="too many"):
        paired_permutation_p(np.ones((21, 1)), exact=True)
