"""How much a score, and a ranking, depend on the raters: a two-level bootstrap.

ΔBLEU's weights come from a few ratings per reference (Galley et al. 2015, sec. 4: the mean
rating m on the scale [lo, hi] gives w = 2(m − lo)/(hi − lo) − 1). Koehn's (2004) bootstrap
resamples the items; the two-level bootstrap also resamples, within each reference, its ratings
with replacement, so that its weight varies as it would have with other raters (a hierarchical
bootstrap: items, then the ratings nested in them), and scores each replicate from a
:class:`~.weight_profiles.WeightProfile` without tokenizing anything.

**Random streams** (all of it is fixed by ``seed``, ``n_samples``, the number of items and the
pools' shape, never by the hypotheses: two systems scored separately against the same
references get the same draws, so their replicates are paired):

* items: exactly :func:`~.significance.bootstrap_ci`'s draws, ``default_rng(seed)`` and
  ``rng.choice(n_items, size=(rows, n_items))`` per block (:func:`.significance.item_count_blocks`;
  the blocks consume the stream as one call for all replicates does);
* ratings: ``default_rng([seed, 1])`` (:data:`RATING_STREAM`), ``rng.random`` with n_values
  doubles per replicate (the stream of ``rng.random((n_samples, n_values))``, row by row), so
  replicate r uses the doubles ``r · n_values … (r + 1) · n_values − 1`` of the stream,
  whatever the blocks. Double ``u`` of value slot s, which belongs to reference
  j (``ptr[j] ≤ s < ptr[j + 1]``, k_j = ``ptr[j + 1] − ptr[j]`` ratings), picks the rating
  ``values[ptr[j] + ⌊u · k_j⌋]`` (u · k_j rounds below k_j for every double u < 1); the
  reference's weight is ``weight_of`` the mean of its k_j picks, summed in slot order then
  divided by k_j. A reference without ratings keeps its base weight and takes no double.

An item whose resampled weights are all ≤ 0 (the metric itself would refuse it) gets the
denominator base · max(max_j w_j, 0) = 0: its numerators, ≤ 0, still count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, overload

import numpy as np

from .base import Metric, MetricInputError
from .significance import (
    DEFAULT_SEED,
    bootstrap_replicates,
    item_count_blocks,
)
from .weight_profiles import WeightProfile

RATING_STREAM = 1  # the rating draws' generator is default_rng([seed, RATING_STREAM])
# Options that act on scores_from_stats only: a profile serves a metric that differs in them.
SCORE_ONLY_OPTIONS = ("smooth", "smooth_value", "effective_order")
FD_STEP = 1e-5  # relative step of the central differences of scores_from_stats
# Ratings drawn per block of replicates (doubles of one array): see RatingPools.draw.
DRAW_BLOCK_VALUES = 1 << 16


@overload
def weight_of(mean: float, scale_min: float, scale_max: float) -> float: ...
@overload
def weight_of(mean: np.ndarray, scale_min: float, scale_max: float) -> np.ndarray: ...
def weight_of(mean: Any, scale_min: float, scale_max: float) -> Any:
    """w = 2(m − lo)/(hi − lo) − 1 of a mean rating m (or an array of them) on the scale
    [lo, hi] (Galley et al. 2015, sec. 4). The web app's weights use this function too, so a
    resampled weight is computed with the same float operations as the released one."""
    return 2.0 * (mean - scale_min) / (scale_max - scale_min) - 1.0


@dataclass(frozen=True, eq=False)
class RatingPools:
    """The ratings of every reference, flat: reference j's are ``values[ptr[j]:ptr[j + 1]]``.

    ``base_weights[j]`` is the weight of a reference without ratings (e.g. an unrated original
    reference with weight 1); ``scale_min``/``scale_max`` the rating scale [lo, hi]; ``kinds``
    (optional, integers from 0) each reference's kind — an original reply, a mined candidate, …
    — for the rater model, whose references of one kind share a distribution of quality;
    ``raters`` (optional, one integer per rating, in ``values``' order) who gave each rating,
    so that the model can measure how much raters differ in their own offsets."""

    values: np.ndarray  # (n_values,) float64
    ptr: np.ndarray  # (n_refs + 1,) int64
    base_weights: np.ndarray  # (n_refs,) float64
    scale_min: float = 1.0
    scale_max: float = 5.0
    kinds: np.ndarray | None = None  # (n_refs,) int
    raters: np.ndarray | None = None  # (n_values,) int: who gave each rating

    @property
    def kind_codes(self) -> np.ndarray:
        """``kinds`` as integers, all 0 when not given."""
        if self.kinds is None:
            return np.zeros(self.n_refs, dtype=np.intp)
        return np.asarray(self.kinds, dtype=np.intp)

    def __post_init__(self) -> None:
        """Check shapes, scale and values (:class:`MetricInputError` names what is wrong)."""
        v, ptr, base = self.values, self.ptr, self.base_weights
        if not self.scale_min < self.scale_max:
            raise MetricInputError(f"scale [{self.scale_min}, {self.scale_max}] is empty")
        if ptr.ndim != 1 or len(ptr) < 1 or ptr[0] != 0 or ptr[-1] != len(v):
            raise MetricInputError("rating pointers must run from 0 to the number of ratings")
        if (np.diff(ptr) < 0).any() or base.shape != (len(ptr) - 1,):
            raise MetricInputError("one base weight per reference and non-decreasing pointers")
        outside = np.flatnonzero(~((v >= self.scale_min) & (v <= self.scale_max)))
        if len(outside):
            ref = int(np.searchsorted(ptr, outside[0], side="right")) - 1
            raise MetricInputError(
                f"reference {ref}: rating {v[outside[0]]} outside the scale "
                f"[{self.scale_min}, {self.scale_max}]"
            )
        if not np.isfinite(base).all():
            raise MetricInputError("base weights must be finite")
        kinds = self.kinds
        if kinds is not None and (
            np.shape(kinds) != (len(ptr) - 1,) or (len(kinds) and np.min(kinds) < 0)
        ):
            raise MetricInputError("one kind per reference, each an integer from 0")
        if self.raters is not None and np.shape(self.raters) != v.shape:
            raise MetricInputError("one rater per rating")

    @classmethod
    def of(
        cls,
        ratings: Sequence[Sequence[float]],
        base_weights: Sequence[float] | np.ndarray | None = None,
        scale_min: float = 1.0,
        scale_max: float = 5.0,
        kinds: Sequence[int] | np.ndarray | None = None,
        raters: Sequence[Sequence[int]] | None = None,
    ) -> RatingPools:
        """Pools from one list of ratings per reference (in the profile's reference order);
        ``base_weights`` default to 1 (the weight of an unrated reference); ``raters``, if
        given, one list per reference of who gave each of its ratings."""
        sizes = [len(r) for r in ratings]
        ptr = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
        values = np.array([x for r in ratings for x in r], dtype=np.float64)
        base = np.ones(len(sizes)) if base_weights is None else base_weights
        kind = None if kinds is None else np.asarray(kinds, dtype=np.intp)
        who = None
        if raters is not None:
            if [len(r) for r in raters] != sizes:
                raise MetricInputError("one rater per rating")
            who = np.array([x for r in raters for x in r], dtype=np.int64)
        base = np.asarray(base, dtype=np.float64)
        return cls(values, ptr, base, scale_min, scale_max, kind, who)

    @property
    def n_refs(self) -> int:
        """Number of references."""
        return len(self.ptr) - 1

    @cached_property
    def _by_size(self) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """(k, the references with k ratings, their first slots) for every k > 0 present."""
        sizes = np.diff(self.ptr)
        out = []
        for k in np.unique(sizes[sizes > 0]).tolist():
            refs = np.flatnonzero(sizes == k)
            out.append((k, refs, self.ptr[refs].astype(np.intp)))
        return out

    def _weights(
        self, pick: Callable[[np.ndarray, int, int], np.ndarray], rows: int | None = None
    ) -> np.ndarray:
        """(n_refs,) weights, or (rows, n_refs) when ``pick`` gives a row per replicate: the
        base weight of a reference without ratings, else ``weight_of`` the mean of
        ``pick(first_slots, t, k)`` over t = 0..k-1 (summed in that order), for the references
        with k ratings whose first slots are ``first_slots``."""
        if rows is None:
            out = self.base_weights.copy()
        else:
            out = np.repeat(self.base_weights[None, :], rows, axis=0)
        for k, refs, first in self._by_size:
            total = pick(first, 0, k)
            for t in range(1, k):
                total += pick(first, t, k)
            weights = weight_of(total / k, self.scale_min, self.scale_max)
            if rows is None:
                out[refs] = weights
            else:
                out[:, refs] = weights
        return out

    def weights(self) -> np.ndarray:
        """The observed weights (n_refs,): ``weight_of`` the mean rating, or the base weight."""
        return self._weights(lambda first, t, k: self.values[first + t])

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` resampled weight vectors (n, n_refs): each reference's ratings drawn with
        replacement (as many as it has), averaged and rescaled. Consumes ``n · n_values``
        doubles of ``rng.random`` (the contract is in the module docstring)."""
        out = np.empty((n, self.n_refs))
        # Replicates a block at a time: a (rows, n_values) draw reads the stream as `rows` draws
        # of n_values do, and the sums run in the same order, so any block size gives the same
        # bits. Small pools gain from blocks (fewer numpy calls); large ones gain nothing, as
        # 1-D gathers over big arrays are the fast ones.
        rows = max(1, min(n, DRAW_BLOCK_VALUES // max(len(self.values), 1)))
        # A replicate a block (large pools): 1-D arrays throughout, indexed without `...`
        # (the one-path version with u[..., i] and out[..., refs] drew 12% slower there).
        u = np.empty(len(self.values) if rows == 1 else (rows, len(self.values)))

        def pick(first: np.ndarray, t: int, k: int) -> np.ndarray:
            slots = first + t
            doubles = u[slots] if rows == 1 else u[:, slots]
            picked: np.ndarray = self.values[first + (doubles * k).astype(np.intp)]
            return picked

        for start in range(0, n, rows):
            block = min(rows, n - start)
            if block < rows:
                u = u[:block]
            rng.random(out=u)
            if rows == 1:
                out[start] = self._weights(pick)
            else:
                out[start : start + block] = self._weights(pick, block)
        return out


def check_profile(metric: Metric, profile: WeightProfile) -> None:
    """The profile must be the metric's: same name, same options but the score-only ones."""
    mine = {k: v for k, v in metric.opts.items() if k not in SCORE_ONLY_OPTIONS}
    theirs = {k: v for k, v in profile.options.items() if k not in SCORE_ONLY_OPTIONS}
    if profile.metric != metric.name or mine != theirs:
        raise MetricInputError(
            f"the profile was built for {profile.metric} {theirs}, not {metric.name} {mine}"
        )


def two_level_bootstrap(
    metric: Metric,
    profile: WeightProfile,
    pools: RatingPools,
    n_samples: int = 1000,
    seed: int = DEFAULT_SEED,
) -> np.ndarray:
    """Scores of ``n_samples`` replicates that resample the items and each reference's
    ratings (the two-level bootstrap; random streams in the module docstring).

    Args:
        metric: the metric the profile was built for (options that act on the score only,
            such as smoothing, may differ).
        profile: one system's :class:`WeightProfile`.
        pools: the ratings of the profile's references, in its reference order.
        n_samples: replicates (≥ 1).
        seed: a non-negative seed; the item draws are ``bootstrap_ci``'s for the same seed.

    Returns:
        The replicate scores, shape (n_samples,); ``percentile_bounds`` gives the interval.
        With every reference's ratings all equal, these are ``bootstrap_ci``'s replicates.
    """
    check_profile(metric, profile)
    if pools.n_refs != profile.n_refs:
        raise MetricInputError(f"{pools.n_refs} rating pools for {profile.n_refs} references")
    if n_samples < 1 or seed < 0:
        raise MetricInputError("n_samples must be ≥ 1 and seed ≥ 0")
    rng = np.random.default_rng([seed, RATING_STREAM])
    sums = np.empty((n_samples, profile.n_stats))
    for start, counts in item_count_blocks(profile.n_items, n_samples, seed, profile.block_rows()):
        weights = pools.draw(rng, len(counts))
        sums[start : start + len(counts)] = profile.summed(weights, counts)
    out: np.ndarray = metric.scores_from_stats(sums)
    return out


@dataclass(frozen=True, eq=False)
class RaterReplicates:
    """Replicates with the raters' uncertainty, centred where the items' alone are.

    ``scores`` are the two-level replicates less ``shift``, kept within the metric's
    ``score_range``; ``items`` the item bootstrap's replicates of the same score (the same item
    draws); ``shift`` = mean(two-level) − mean(items), what resampling the ratings adds on
    average."""

    scores: np.ndarray
    items: np.ndarray
    shift: float


def rater_replicates(
    metric: Metric,
    profile: WeightProfile,
    pools: RatingPools,
    n_samples: int = 1000,
    seed: int = DEFAULT_SEED,
    weights: np.ndarray | None = None,
) -> RaterReplicates:
    """The two-level replicates, recentred on the item bootstrap's (:class:`RaterReplicates`).

    Resampled weights are noisier than the observed ones, and a maximum over noisy weights
    exceeds, on average, the maximum over their means (ΔBLEU and ΔNIST take one for each
    matched n-gram and for the denominator): two-level replicates sit above the observed score,
    often with all of it below their 95% interval. The observed score carries the same bias
    with respect to infinitely many raters, and another panel's score has the same expectation
    as this one, so the question "what would other raters give?" is answered by the replicates'
    spread, not their offset: they are moved by the bias that the ratings' resampling adds,
    measured against the item bootstrap on the same item draws. With every reference's ratings
    equal the shift is 0 and the result is the item bootstrap (:func:`bootstrap_ci`).

    Args:
        metric, profile, pools, n_samples, seed: as for :func:`two_level_bootstrap`.
        weights: the weights the score was computed with (default: ``pools.weights()``); the
            item replicates resample the profile's rows at them.

    Returns:
        A :class:`RaterReplicates`; ``percentile_bounds(result.scores)`` is the interval.
    """
    raw = two_level_bootstrap(metric, profile, pools, n_samples=n_samples, seed=seed)
    observed = pools.weights() if weights is None else weights
    items = bootstrap_replicates(metric, profile.rows(observed), n_samples, seed)
    shift = float(raw.mean() - items.mean())
    # A score at the edge of its range (ΔBLEU 0: no match on a reference rated good) would
    # otherwise be given replicates, and an interval, beyond it. The item replicates widen the
    # range by what rounding gives a real score there (a perfect BLEU may be 100 + 1e-14).
    low, high = metric.score_range
    kept = np.clip(raw - shift, min(low, items.min()), max(high, items.max()))
    return RaterReplicates(kept, items, shift)


def _first_max(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The index of the first largest value of each segment ``starts[k]:starts[k + 1]``."""
    best = np.maximum.reduceat(values, starts)
    segment = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(values))))
    hit = np.flatnonzero(values == best[segment])
    first = np.ones(len(hit), dtype=bool)
    first[1:] = segment[hit[1:]] != segment[hit[:-1]]
    return hit[first]


def stat_derivatives(metric: Metric, summed: np.ndarray, cols: Sequence[int]) -> np.ndarray:
    """∂ score / ∂ summed[c] for the columns ``cols`` (0 elsewhere): central differences of
    ``metric.scores_from_stats`` with the step :data:`FD_STEP` · max(|summed[c]|, 1)."""
    cols = list(cols)
    k = np.arange(len(cols))
    step = FD_STEP * np.maximum(np.abs(summed[cols]), 1.0)
    points = np.tile(summed, (2 * len(cols), 1))
    points[k, cols] += step
    points[len(cols) + k, cols] -= step
    scores = metric.scores_from_stats(points)
    out = np.zeros(len(summed))
    out[cols] = (scores[: len(cols)] - scores[len(cols) :]) / (2 * step)
    return out


def score_gradient(metric: Metric, profile: WeightProfile, weights: np.ndarray) -> np.ndarray:
    """∂ corpus score / ∂ w_j of every reference at ``weights`` (n_refs,): where another
    rating would move the score most (adaptive rating).

    Chain rule: ∂ score / ∂ summed statistics by central differences (:func:`stat_derivatives`)
    times the sparse ∂ summed statistics / ∂ w_j of the profile: a group's numerator term
    m_g · max_j (w_j · a_gj) moves with its arg-max reference (m_g · a_gj), an item's
    denominator base_n · max(max_j w_j, 0) with its arg-max reference (base_n, 0 when
    max_j w_j ≤ 0); on ties the first reference gets the derivative (a one-sided choice at a
    kink, where the score has no derivative)."""
    check_profile(metric, profile)
    w = profile.checked_weights(weights)
    if not np.isfinite(w).all():
        raise MetricInputError("weights must be finite")
    d = stat_derivatives(metric, profile.rows(w).sum(axis=0), profile.num_cols + profile.den_cols)
    grad = np.zeros(profile.n_refs)
    for col, order in zip(profile.num_cols, profile.orders, strict=True):
        if d[col] == 0 or not len(order.starts):
            continue
        row = _first_max(w[order.ref] * order.amount, order.starts)
        gain = d[col] * (order.mult * order.amount[row])
        grad += np.bincount(order.ref[row], weights=gain, minlength=profile.n_refs)
    if profile.n_items:
        best = _first_max(w, profile.ref_ptr[:-1])
        live = w[best] > 0
        gain = np.asarray(profile.den_base, dtype=np.float64) @ d[profile.den_cols]
        grad += np.bincount(best[live], weights=gain[live], minlength=profile.n_refs)
    return grad
