"""Pairwise meta-evaluation of a metric against human scores (METHODS.md, "Meta-evaluation"):
pairwise accuracy, tie-calibrated pairwise accuracy (acc_eq) and soft pairwise accuracy (SPA).

Inputs are plain arrays: system-level scores of shape (systems,), or segment-level grids of
shape (systems, items) with NaN where a system has no score for an item. Metric scores must
grow with quality (negate a lower-is-better metric first).

Ties. Every pair (a, b) of systems (or of two systems' responses to one item) falls in one of
five classes, with Δm = m_a − m_b and Δh = h_a − h_b: concordant C (both nonzero, same
sign), discordant D (both nonzero, opposite signs), T_h tied only in the human scores
(Δh = 0 ≠ Δm), T_m tied only in the metric's, T_hm tied in both. Human ties are exact
equality: round averaged ratings first if float sums could split them.

- Pairwise accuracy (Kocmi et al. 2021) is the share of pairs where sign(Δm) = sign(Δh), with
  sign(0) = 0: a pair tied on both sides agrees, a tie on one side only does not. That is
  (C + T_hm) / all pairs — acc_eq at ε = 0 — so the two never disagree about exact ties.
- acc_eq (Deutsch, Foster & Freitag 2023, "Ties Matter", sec. 5) calls the metric tied when
  |Δm| ≤ ε and chooses ε to maximise (C + T_hm) / (C + D + T_h + T_m + T_hm); ε is searched
  over 0 and every distinct |Δm|, the smallest of equally good values is kept and reported.
  At segment level WMT groups by item: acc_eq per item, averaged over items, with one ε for
  all items chosen to maximise the average (their `tau_optimization` does the same).
- SPA (Thompson, Mathur, Deutsch & Kocmi 2024, sec. 3): for every system pair (i, j), i < j,
  a one-sided paired permutation test that i is better than j on the segments both systems
  have, once on the human scores (p^h_ij) and once on the metric's (p^m_ij), and
  SPA = 1 − mean over pairs |p^h_ij − p^m_ij|. A permutation swaps the two systems' scores
  of each segment with probability ½, i.e. flips the sign of each per-segment difference; the
  p-value is the share of permutations whose mean difference is ≥ the observed one (the
  identity counts, as in an exact test). The same random sign matrix serves every pair and
  both sides (common random numbers: the Monte-Carlo errors of p^h and p^m partly cancel in
  their difference); with `exact=True`, all 2^n sign vectors are enumerated (small n only).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

# Sign vectors handled at once by the permutation test: memory is CHUNK × segments floats.
PERMUTATION_CHUNK = 100
# The most segments an exact permutation test enumerates (2^n sign vectors).
EXACT_MAX_SEGMENTS = 20


@dataclass(frozen=True)
class PairCounts:
    """Pairs by class (see the module docstring) and the accuracy (C + T_hm) / all pairs."""

    concordant: int
    discordant: int
    human_ties: int
    metric_ties: int
    both_ties: int

    @property
    def total(self) -> int:
        return (
            self.concordant + self.discordant + self.human_ties + self.metric_ties + self.both_ties
        )

    @property
    def accuracy(self) -> float:
        return (self.concordant + self.both_ties) / self.total if self.total else float("nan")


def pair_counts(
    metric_diff: np.ndarray, human_diff: np.ndarray, epsilon: float = 0.0
) -> PairCounts:
    """Count the pairs of each class given their metric and human differences (flat arrays
    of one length); the metric ties a pair when |Δm| ≤ `epsilon`."""
    dm, dh = np.asarray(metric_diff, dtype=np.float64), np.asarray(human_diff, dtype=np.float64)
    if dm.shape != dh.shape:
        raise ValueError("metric and human differences must have one shape")
    m_tie, h_tie = np.abs(dm) <= epsilon, dh == 0
    neither = ~m_tie & ~h_tie
    same = np.sign(dm) == np.sign(dh)
    return PairCounts(
        concordant=int((neither & same).sum()),
        discordant=int((neither & ~same).sum()),
        human_ties=int((h_tie & ~m_tie).sum()),
        metric_ties=int((m_tie & ~h_tie).sum()),
        both_ties=int((m_tie & h_tie).sum()),
    )


def _system_vectors(metric: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m, h = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    if m.ndim != 1 or m.shape != h.shape:
        raise ValueError("system scores must be flat arrays of one length (systems,)")
    keep = np.isfinite(m) & np.isfinite(h)
    return m[keep], h[keep]


def _pair_diffs(m: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(m.size, k=1)
    return m[i] - m[j], h[i] - h[j]


@dataclass(frozen=True)
class PairwiseAccuracy:
    """Pairwise accuracy over the pairs of systems that have both scores."""

    value: float
    counts: PairCounts
    n_systems: int


def pairwise_accuracy(metric: np.ndarray, human: np.ndarray) -> PairwiseAccuracy:
    """The share of system pairs ordered alike by the metric and the humans (see the module
    docstring for ties). `metric`, `human`: (systems,) scores; NaN leaves a system out."""
    m, h = _system_vectors(metric, human)
    counts = pair_counts(*_pair_diffs(m, h))
    return PairwiseAccuracy(counts.accuracy, counts, int(m.size))


@dataclass(frozen=True)
class TieCalibratedAccuracy:
    """acc_eq at its best ε (see the module docstring).

    `counts` are at that ε, summed over all pairs (over the items' pairs when grouped);
    `n_groups` is the number of items averaged (1 at system level) and `n_dropped` the items
    without a pair (fewer than two systems with both scores)."""

    value: float
    epsilon: float
    counts: PairCounts
    n_groups: int
    n_dropped: int


def _best_epsilon(dm: np.ndarray, dh: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """The ε among 0 and the distinct |Δm| that maximises Σ weight · [pair correct], and that
    weighted sum. A pair is correct when concordant with |Δm| > ε or tied for the humans with
    |Δm| ≤ ε; sorting by |Δm| turns every candidate into one prefix, so all are scored at once.
    """
    gap = np.abs(dm)
    order = np.argsort(gap, kind="stable")
    gap, dm, dh, weights = gap[order], dm[order], dh[order], weights[order]
    good_apart = weights * ((np.sign(dm) == np.sign(dh)) & (dh != 0) & (dm != 0))
    good_tied = weights * (dh == 0)
    candidates = np.concatenate([[0.0], np.unique(gap)])
    tied_upto = np.searchsorted(gap, candidates, side="right")  # pairs with |Δm| ≤ ε
    apart = np.concatenate([[0.0], np.cumsum(good_apart)])
    tied = np.concatenate([[0.0], np.cumsum(good_tied)])
    score = apart[-1] - apart[tied_upto] + tied[tied_upto]
    # The smallest of equally good ε: equal in exact arithmetic, as float sums may not be.
    best = int(np.flatnonzero(score >= score.max() - 1e-12 * weights.sum())[0])
    return float(candidates[best]), float(score[best])


def tie_calibrated_accuracy(metric: np.ndarray, human: np.ndarray) -> TieCalibratedAccuracy:
    """acc_eq over the pairs of systems, with ε chosen to maximise it. `metric`, `human`:
    (systems,) scores; NaN leaves a system out."""
    m, h = _system_vectors(metric, human)
    dm, dh = _pair_diffs(m, h)
    if not dm.size:
        return TieCalibratedAccuracy(float("nan"), 0.0, pair_counts(dm, dh), 0, 0)
    epsilon, correct = _best_epsilon(dm, dh, np.ones(dm.size))
    return TieCalibratedAccuracy(correct / dm.size, epsilon, pair_counts(dm, dh, epsilon), 1, 0)


def tie_calibrated_values(metric: np.ndarray, human: np.ndarray) -> np.ndarray:
    """`tie_calibrated_accuracy(m, h).value` for each row of (replicates, systems) arrays, the
    rows without NaN at once (a study's bootstrap asks for 1,000 per metric and criterion).
    With unit weights every prefix sum of `_best_epsilon` is an exact integer, so the best
    score is the largest one at a candidate ε, in any summation order: the same values."""
    m, h = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    out = np.full(m.shape[0], np.nan)
    whole = np.all(np.isfinite(m) & np.isfinite(h), axis=1)
    i, j = np.triu_indices(m.shape[1], k=1)
    if whole.any() and i.size:
        dm, dh = m[whole][:, i] - m[whole][:, j], h[whole][:, i] - h[whole][:, j]
        gap = np.abs(dm)
        order = np.argsort(gap, axis=1, kind="stable")
        gap, dm, dh = (np.take_along_axis(v, order, axis=1) for v in (gap, dm, dh))
        apart = np.cumsum((np.sign(dm) == np.sign(dh)) & (dh != 0) & (dm != 0), axis=1)
        tied = np.cumsum(dh == 0, axis=1)
        # ε = |Δm| at the last pair of each run of equal gaps (the pairs up to it are tied),
        # or ε = 0 with only the pairs at |Δm| = 0 tied.
        last = np.ones_like(gap, dtype=bool)
        last[:, :-1] = gap[:, 1:] != gap[:, :-1]
        score = np.where(last, apart[:, -1:] - apart + tied, -1)
        zeros = (gap == 0).sum(axis=1)
        at_zero = np.where(zeros > 0, score[np.arange(len(gap)), np.maximum(zeros - 1, 0)], -1)
        at_zero = np.where(zeros > 0, at_zero, apart[:, -1])
        out[whole] = np.maximum(score.max(axis=1), at_zero) / i.size
    for row in np.flatnonzero(~whole):
        out[row] = tie_calibrated_accuracy(m[row], h[row]).value
    return out


def _grids(metric: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m, h = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    if m.ndim != 2 or m.shape != h.shape:
        raise ValueError(f"grids of one shape (systems, items) needed: {m.shape}, {h.shape}")
    return m, h


def item_grouped_tie_calibrated_accuracy(
    metric: np.ndarray, human: np.ndarray
) -> TieCalibratedAccuracy:
    """acc_eq per item over the pairs of systems that both have scores for it, averaged over
    items, with one ε for all items chosen to maximise the average. `metric`, `human`:
    (systems, items) grids, NaN where a cell has no score. Items with no pair are dropped and
    counted."""
    m, h = _grids(metric, human)
    i, j = np.triu_indices(m.shape[0], k=1)
    ok = np.isfinite(m) & np.isfinite(h)
    both = ok[i] & ok[j]  # (pairs, items)
    per_item = both.sum(axis=0)
    kept = per_item > 0
    dm, dh = (m[i] - m[j])[both], (h[i] - h[j])[both]
    if not dm.size:
        return TieCalibratedAccuracy(float("nan"), 0.0, pair_counts(dm, dh), 0, m.shape[1])
    # Each item weighs 1 / (its pairs × the items kept): the weighted sum is the average.
    item_of_pair = np.broadcast_to(np.arange(m.shape[1]), both.shape)[both]
    weights = 1.0 / (per_item[item_of_pair] * kept.sum())
    epsilon, value = _best_epsilon(dm, dh, weights)
    counts = pair_counts(dm, dh, epsilon)
    return TieCalibratedAccuracy(value, epsilon, counts, int(kept.sum()), int((~kept).sum()))


@dataclass(frozen=True)
class SoftPairwiseAccuracy:
    """SPA and the p-values it is made of.

    `p_human[i, j]`, `p_metric[i, j]` (i < j; NaN elsewhere and for pairs without a common
    segment) are the one-sided p-values that system i is better than system j; `n_pairs` the
    pairs averaged; `permutations` the number of sign vectors (2^n per pair when exact)."""

    value: float
    p_human: np.ndarray
    p_metric: np.ndarray
    n_pairs: int
    permutations: int
    exact: bool


def _signs(n: int, permutations: int, seed: int, exact: bool) -> Iterator[np.ndarray]:
    """Chunks of ±1 sign vectors (rows) over n segments: all 2^n when exact, else random."""
    if exact:
        if n > EXACT_MAX_SEGMENTS:
            raise ValueError(f"an exact test enumerates 2^n vectors: n = {n} is too many")
        codes = np.arange(2**n, dtype=np.int64)
        for start in range(0, codes.size, 2**14):
            bits = (codes[start : start + 2**14, None] >> np.arange(n)) & 1
            yield 1.0 - 2.0 * bits
        return
    rng = np.random.default_rng([seed, 0x5BA])
    for start in range(0, permutations, PERMUTATION_CHUNK):
        rows = min(PERMUTATION_CHUNK, permutations - start)
        yield 1.0 - 2.0 * rng.integers(0, 2, size=(rows, n))


def paired_permutation_p(
    diffs: np.ndarray, *, permutations: int = 1000, seed: int = 0, exact: bool = False
) -> np.ndarray:
    """One-sided p-values that the mean of each column of `diffs` (segments, tests) is > 0,
    by flipping the signs of the segments' differences (NaN: the segment is not in that
    test). The same sign vectors serve every column. NaN for a column without a segment."""
    d = np.asarray(diffs, dtype=np.float64)
    present = np.isfinite(d)
    d = np.where(present, d, 0.0)  # a missing segment adds 0 whatever its sign
    observed = d.sum(axis=0)
    # Sums of the same numbers in another order may differ in the last bits: the identity
    # and its equals must count as ≥ the observed sum.
    slack = 1e-9 * np.abs(d).sum(axis=0)
    hits = np.zeros(d.shape[1])
    total = 0
    for signs in _signs(d.shape[0], permutations, seed, exact):
        hits += (signs @ d >= observed - slack).sum(axis=0)
        total += signs.shape[0]
    return np.where(present.any(axis=0), hits / max(total, 1), np.nan)


def soft_pairwise_accuracy(
    metric: np.ndarray,
    human: np.ndarray,
    *,
    permutations: int = 1000,
    seed: int = 0,
    exact: bool = False,
) -> SoftPairwiseAccuracy:
    """SPA of a metric's segment scores against the humans' (see the module docstring).

    `metric`, `human`: (systems, items) grids, NaN where a cell has no score; a pair is tested
    on the items where both systems have both scores. `permutations` random sign vectors (the
    same for every pair and both sides, from `seed`), or every one when `exact` (at most
    `EXACT_MAX_SEGMENTS` items)."""
    m, h = _grids(metric, human)
    ok = np.isfinite(m) & np.isfinite(h)
    i, j = np.triu_indices(m.shape[0], k=1)
    both = (ok[i] & ok[j]).T  # (items, pairs)
    dh = np.where(both, (h[i] - h[j]).T, np.nan)
    dm = np.where(both, (m[i] - m[j]).T, np.nan)
    p = paired_permutation_p(np.hstack([dh, dm]), permutations=permutations, seed=seed, exact=exact)
    p_h, p_m = p[: i.size], p[i.size :]
    gaps = np.abs(p_h - p_m)
    used = np.isfinite(gaps)
    value = 1.0 - float(gaps[used].mean()) if used.any() else float("nan")
    shape = (m.shape[0], m.shape[0])
    p_human, p_metric = np.full(shape, np.nan), np.full(shape, np.nan)
    p_human[i, j], p_metric[i, j] = p_h, p_m
    count = 2 ** m.shape[1] if exact else permutations
    return SoftPairwiseAccuracy(value, p_human, p_metric, int(used.sum()), count, exact)
