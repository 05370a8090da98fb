"""The two-level bootstrap against a slow re-implementation, rank stability, score gradients."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scoring.metrics import (
    MetricInputError,
    RatingPools,
    RefItem,
    WeightedRef,
    bootstrap_ci,
    bootstrap_replicates,
    get_metric,
    percentile_bounds,
    rank_stability,
    rater_replicates,
    score_gradient,
    two_level_bootstrap,
    weight_profile,
)
from scoring.metrics import rater_bootstrap as rb_module
from scoring.metrics import weight_profiles as wp_module
from scoring.metrics.refset import RefSet
from scoring.metrics.significance import item_count_blocks
from tests.metrics.helpers import random_corpus, reweighted

CASES = [
    ("dbleu", {"max_order": 2}),
    ("dbleu", {"definition": "author-2019", "max_order": 2, "tokenize": "none"}),
    ("dbleu", {"smooth": "floor", "lowercase": True}),
    ("dnist", {"max_order": 3}),
]
IDS = ["dbleu-paper", "dbleu-author", "dbleu-floor", "dnist"]


def rated_pools(items: list[RefItem], seed: int, identical: bool = False) -> RatingPools:
    """Ratings on 1–5 for most references. Each item's last reference stays positive in
    every resample: unrated (base weight 1) or rated 4 and 5 only; ``identical``: every pool's
    ratings are one value repeated."""
    rng = random.Random(seed)
    ratings: list[list[float]] = []
    base: list[float] = []
    for item in items:
        for j, ref in enumerate(item.refs):
            last = j == len(item.refs) - 1
            k = rng.randint(0, 3)
            low = 4 if last else 1
            if identical:
                ratings.append([float(rng.randint(low, 5))] * max(k, 1))
            else:
                ratings.append([float(rng.randint(low, 5)) for _ in range(k)])
            base.append(ref.weight)
    return RatingPools.of(ratings, base)


def slow_two_level(metric, hyps, items, pools: RatingPools, n_samples: int, seed: int):
    """The documented streams drawn in one call each; every replicate's references weighted
    one by one, scored with the metric's own stats_direct (tokenizing each time)."""
    n = len(items)
    picks = np.random.default_rng(seed).choice(n, size=(n_samples, n), replace=True)
    u = np.random.default_rng([seed, 1]).random((n_samples, len(pools.values)))
    scores = []
    for b in range(n_samples):
        weights = []
        for j in range(pools.n_refs):
            a, k = int(pools.ptr[j]), int(pools.ptr[j + 1] - pools.ptr[j])
            if k == 0:
                weights.append(float(pools.base_weights[j]))
                continue
            drawn = [pools.values[a + int(u[b, a + t] * k)] for t in range(k)]
            mean = sum(drawn) / k
            weights.append(2.0 * (mean - 1) / (5 - 1) - 1.0)
        rows = metric.stats_direct(hyps, reweighted(items, weights))
        scores.append(float(metric.scores_from_stats(rows[picks[b]].sum(axis=0))))
    return np.array(scores)


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_two_level_bootstrap_equals_a_slow_re_implementation(name, opts, seed):
    hyps, items = random_corpus(seed, n=9)
    metric = get_metric(name, **opts)
    pools = rated_pools(items, seed)
    profile = weight_profile(metric, hyps, items)
    fast = two_level_bootstrap(metric, profile, pools, n_samples=25, seed=seed)
    slow = slow_two_level(metric, hyps, items, pools, 25, seed)
    np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-9)
    assert len(set(fast.round(9))) > 5  # the replicates do differ


def test_small_blocks_draw_the_same_replicates(monkeypatch):
    hyps, items = random_corpus(5, n=12)
    metric = get_metric("dbleu", max_order=2)
    pools = rated_pools(items, 5)
    profile = weight_profile(metric, hyps, items)
    whole = two_level_bootstrap(metric, profile, pools, n_samples=40, seed=7)
    monkeypatch.setattr(wp_module, "BLOCK_CELLS", 100)  # a replicate or two a block
    # the same draws; matrix products of other shapes may round otherwise
    small = two_level_bootstrap(metric, profile, pools, 40, seed=7)
    np.testing.assert_allclose(small, whole, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("block_values", [1, 7, 1 << 30])
def test_the_rating_draws_do_not_depend_on_how_many_replicates_a_block_holds(
    monkeypatch, block_values
):
    pools = RatingPools.of([[1, 5, 2], [], [4, 4], [3], [2, 5, 5, 1]], [0.5, 0.25, 1, 1, 1])
    rng = np.random.default_rng(3)
    one_by_one = np.concatenate([pools.draw(rng, 1) for _ in range(50)])  # a replicate a call
    monkeypatch.setattr(rb_module, "DRAW_BLOCK_VALUES", block_values)
    assert np.array_equal(pools.draw(np.random.default_rng(3), 50), one_by_one)


@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_identical_ratings_give_the_item_bootstrap(name, opts):
    hyps, items = random_corpus(6, n=15)
    metric = get_metric(name, **opts)
    pools = rated_pools(items, 6, identical=True)
    weighted = reweighted(items, pools.weights())
    stats = metric.stats_direct(hyps, weighted)
    profile = weight_profile(metric, hyps, weighted)
    replicates = two_level_bootstrap(metric, profile, pools, n_samples=300, seed=11)
    interval = bootstrap_ci(metric, stats, n_samples=300, seed=11)
    bounds = percentile_bounds(replicates)
    np.testing.assert_allclose(bounds, (interval.low, interval.high), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(replicates.mean(), interval.mean, rtol=1e-9)
    ((_, counts),) = item_count_blocks(len(stats), 300, 11)
    today = metric.scores_from_stats(counts @ stats)
    np.testing.assert_allclose(replicates, today, rtol=1e-9, atol=1e-9)


def test_item_count_blocks_do_not_depend_on_the_block_size():
    whole = np.concatenate([c for _, c in item_count_blocks(13, 50, 3)])
    for rows in (1, 7, 49):
        blocks = [c for _, c in item_count_blocks(13, 50, 3, rows)]
        assert np.array_equal(np.concatenate(blocks), whole)
        assert max(len(b) for b in blocks) == rows


def test_rating_pools_weights_and_the_documented_stream():
    pools = RatingPools.of([[1, 5], [], [4, 4, 2]], base_weights=[0.5, 0.25, -1.0])
    assert pools.ptr.tolist() == [0, 2, 2, 5]
    np.testing.assert_array_equal(pools.weights(), [0.0, 0.25, 2.0 * (10 / 3 - 1) / 4 - 1.0])
    drawn = pools.draw(np.random.default_rng([9, 1]), 6)
    u = np.random.default_rng([9, 1]).random((6, 5))
    first = np.where(u[:, :2] < 0.5, 1.0, 5.0).mean(axis=1)
    np.testing.assert_allclose(drawn[:, 0], (first - 3) / 2)
    assert (drawn[:, 1] == 0.25).all()
    rng = np.random.default_rng(2)
    parts = np.concatenate([pools.draw(rng, 2), pools.draw(rng, 3), pools.draw(rng, 1)])
    assert np.array_equal(parts, pools.draw(np.random.default_rng(2), 6))
    # ⌊u · k⌋ < k for the largest double below 1, as the documented stream says
    k = np.arange(1, 100_001, dtype=np.float64)
    assert (np.floor(np.nextafter(1.0, 0.0) * k) == k - 1).all()


@pytest.mark.parametrize(
    "ratings, base, match",
    [
        ([[0, 3]], [1.0], "outside the scale"),
        ([[3, float("nan")]], [1.0], "outside the scale"),
        ([[3], [4]], [1.0], "one base weight per reference"),
    ],
)
def test_bad_rating_pools_are_refused(ratings, base, match):
    with pytest.raises(MetricInputError, match=match):
        RatingPools.of(ratings, base)


def test_a_profile_of_another_metric_or_reference_set_is_refused():
    hyps, items = random_corpus(7, n=5)
    profile = weight_profile(get_metric("dbleu"), hyps, items)
    pools = rated_pools(items, 7)
    with pytest.raises(MetricInputError, match="built for dbleu"):
        two_level_bootstrap(get_metric("dbleu", tokenize="char"), profile, pools, 10)
    # the smoothing acts on the score only: the profile serves
    two_level_bootstrap(get_metric("dbleu", smooth="add-k"), profile, pools, 10)
    with pytest.raises(MetricInputError, match="rating pools"):
        two_level_bootstrap(get_metric("dbleu"), profile, RatingPools.of([[3]]), 10)


def test_rank_stability_on_a_hand_made_matrix():
    # replicate ranks: (1 2 3), (2 1 3), a three-way tie (each a third of ranks 1–3), (2 3 1)
    replicates = [[3, 1, 2, 2], [1, 3, 2, 1], [0, 0, 2, 5]]
    result = rank_stability(replicates)
    np.testing.assert_allclose(
        result.rank_probs,
        [[1 / 3, 7 / 12, 1 / 12], [1 / 3, 1 / 3, 1 / 3], [1 / 3, 1 / 12, 7 / 12]],
    )
    np.testing.assert_allclose(result.rank_probs.sum(axis=1), 1.0)
    np.testing.assert_allclose(result.expected_rank, [1.75, 2.0, 2.25])
    np.testing.assert_allclose(result.neighbour_order, [0.625, 0.625])
    np.testing.assert_array_equal(result.rank_bounds, [[1, 2], [1, 3], [1, 3]])
    np.testing.assert_array_equal(result.score_bounds, [[1, 3], [1, 3], [0, 5]])


def test_entries_tied_in_every_replicate_count_half_whatever_their_order():
    tied = [[2.0, 5.0, 1.0], [2.0, 5.0, 1.0], [0.0, 0.0, 0.0]]
    for order in ([0, 1, 2], [1, 0, 2]):
        result = rank_stability(np.array(tied)[order])
        np.testing.assert_allclose(result.neighbour_order, [0.5, 1.0])
        np.testing.assert_allclose(result.rank_probs[:2], [[0.5, 0.5, 0.0]] * 2)
        np.testing.assert_allclose(result.expected_rank, [1.5, 1.5, 3.0])


def test_rank_stability_when_lower_is_better():
    result = rank_stability([[1.0, 2.0, 1.0], [2.0, 1.0, 1.0]], higher_is_better=False)
    np.testing.assert_allclose(result.rank_probs, [[0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_allclose(result.neighbour_order, [0.5])
    result = rank_stability([[1.0, 2.0, 1.5], [2.0, 1.0, 1.0]], higher_is_better=False)
    np.testing.assert_allclose(result.neighbour_order, [1 / 3])
    with pytest.raises(MetricInputError):
        rank_stability(np.zeros((2, 0)))


def matched_corpus(seed: int, n: int) -> tuple[list[str], list[RefItem]]:
    """Hypotheses that share much with their references (every order matches), and weights
    drawn from a continuous distribution (no ties among an n-gram's references)."""
    rng = np.random.default_rng(seed)
    hyps, refs = random_corpus(seed, n)
    items = []
    for k, item in enumerate(refs):
        texts = [r.text for r in item.refs if r.text] or ["the cat"]
        weights = rng.uniform(-0.99, 0.99, size=len(texts))
        weights[-1] = rng.uniform(0.2, 0.99)
        items.append(RefItem(item.id, tuple(map(WeightedRef, texts, weights))))
        words = texts[-1].split()
        hyps[k] = " ".join([*words[:-1], hyps[k].split(" ")[0]])
    return hyps, items


@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_score_gradient_equals_finite_differences_of_direct_scoring(name, opts):
    hyps, items = matched_corpus(8, 10)
    metric = get_metric(name, **opts)
    refs = RefSet.of(items)
    w = refs.weights.copy()
    grad = score_gradient(metric, weight_profile(metric, hyps, items), w)

    def score(weights):
        rows = metric.stats_direct(hyps, reweighted(items, weights))
        return float(metric.scores_from_stats(rows.sum(axis=0)))

    h = 1e-6
    numeric = np.zeros(len(w))
    for j in range(len(w)):
        up, down = w.copy(), w.copy()
        up[j] += h
        down[j] -= h
        numeric[j] = (score(up) - score(down)) / (2 * h)
    assert np.abs(numeric).max() > 0.1  # the score does move with the weights
    np.testing.assert_allclose(grad, numeric, atol=1e-6, rtol=1e-6)


def test_bootstrap_replicates_are_what_bootstrap_ci_bounds():
    hyps, items = random_corpus(8, n=20)
    metric = get_metric("dbleu")
    stats = metric.stats_direct(hyps, items)
    replicates = bootstrap_replicates(metric, stats, n_samples=200, seed=5)
    interval = bootstrap_ci(metric, stats, n_samples=200, seed=5)
    assert percentile_bounds(replicates) == (interval.low, interval.high)
    assert replicates.mean() == interval.mean
    ((_, counts),) = item_count_blocks(len(stats), 200, 5)
    assert np.array_equal(replicates, metric.scores_from_stats(counts @ stats))


@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_rater_replicates_keep_the_spread_and_drop_the_offset(name, opts):
    hyps, items = random_corpus(12, n=30)
    metric = get_metric(name, **opts)
    pools = rated_pools(items, 12)
    weighted = reweighted(items, pools.weights())
    profile = weight_profile(metric, hyps, weighted)
    raw = two_level_bootstrap(metric, profile, pools, n_samples=300, seed=3)
    got = rater_replicates(metric, profile, pools, n_samples=300, seed=3)
    items_only = bootstrap_replicates(metric, metric.stats_direct(hyps, weighted), 300, 3)
    np.testing.assert_allclose(got.items, items_only, rtol=1e-12, atol=1e-12)
    assert got.shift == pytest.approx(raw.mean() - items_only.mean(), abs=1e-12)
    np.testing.assert_allclose(got.scores, raw - got.shift, rtol=1e-12, atol=1e-12)
    # Centred as the items' replicates, with the raters' extra spread.
    assert got.scores.mean() == pytest.approx(items_only.mean(), abs=1e-9)
    assert got.scores.std() > items_only.std()


def test_noisy_ratings_bias_the_two_level_replicates_upward_and_recentring_removes_it():
    # One good reference an item and three middling ones whose raters disagree wildly: the
    # maximum over resampled weights climbs above the maximum over their means.
    rng = random.Random(0)
    words = [f"w{k}" for k in range(40)]
    items, hyps, ratings = [], [], []
    for i in range(60):
        refs = [" ".join(rng.choices(words, k=8)) for _ in range(4)]
        items.append(RefItem(f"i{i}", tuple(WeightedRef(r, 0.0) for r in refs)))
        hyps.append(" ".join(refs[rng.randrange(4)].split()[:5] + rng.choices(words, k=3)))
        ratings += [[5.0, 5.0, 5.0], [1.0, 5.0, 3.0], [1.0, 5.0, 3.0], [1.0, 5.0, 3.0]]
    pools = RatingPools.of(ratings)
    weighted = reweighted(items, pools.weights())
    metric = get_metric("dbleu")
    profile = weight_profile(metric, hyps, weighted)
    observed = float(metric.scores_from_stats(metric.stats_direct(hyps, weighted).sum(axis=0)))
    raw = two_level_bootstrap(metric, profile, pools, n_samples=400, seed=1)
    got = rater_replicates(metric, profile, pools, n_samples=400, seed=1)
    assert got.shift > 0 and raw.mean() > observed
    low, high = percentile_bounds(got.scores)
    assert low <= observed <= high


def test_a_score_at_zero_gets_no_replicate_and_no_interval_below_zero():
    # The system matches only references its raters split on (1 and 5: weight 0): its ΔBLEU is
    # 0, and so are all its item replicates. Panels drawing more 5s than 1s make some two-level
    # replicates positive (those with more 1s stay at 0), so the recentring shift is positive;
    # moved by it, the replicates at 0 would fall below what ΔBLEU can be.
    rng = random.Random(4)
    items, hyps, ratings = [], [], []
    for i in range(40):  # words of their own: the output matches nothing of the good reference
        good, bad = (" ".join(rng.choices([f"{kind}{k}" for k in range(15)], k=6)) for kind in "gb")
        items.append(RefItem(f"i{i}", (WeightedRef(good, 0.0), WeightedRef(bad, 0.0))))
        hyps.append(bad)
        ratings += [[5.0, 5.0, 5.0], [1.0, 5.0]]
    pools = RatingPools.of(ratings)
    metric = get_metric("dbleu", max_order=2)
    profile = weight_profile(metric, hyps, reweighted(items, pools.weights()))
    raw = two_level_bootstrap(metric, profile, pools, n_samples=400, seed=2)
    got = rater_replicates(metric, profile, pools, n_samples=400, seed=2)
    assert np.all(got.items == 0.0) and got.shift > 0
    assert (raw - got.shift).min() < 0  # what the replicates were before they were kept in range
    np.testing.assert_array_equal(got.scores, np.maximum(raw - got.shift, 0.0))
    assert percentile_bounds(got.scores)[0] == 0.0
    assert metric.score_range == (0.0, 100.0) and get_metric("dnist").score_range[0] == 0.0


def test_with_identical_ratings_rater_replicates_are_the_item_bootstrap():
    hyps, items = random_corpus(6, n=15)
    metric = get_metric("dbleu")
    pools = rated_pools(items, 6, identical=True)
    weighted = reweighted(items, pools.weights())
    profile = weight_profile(metric, hyps, weighted)
    got = rater_replicates(metric, profile, pools, n_samples=300, seed=11)
    interval = bootstrap_ci(metric, metric.stats_direct(hyps, weighted), n_samples=300, seed=11)
    assert abs(got.shift) < 1e-9
    np.testing.assert_allclose(
        percentile_bounds(got.scores), (interval.low, interval.high), rtol=1e-9, atol=1e-9
    )
