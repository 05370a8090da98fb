"""Bootstrap confidence intervals and paired significance tests, vectorised over statistics.

Generic over any :class:`~.base.Metric`: resampling only re-weights rows of the per-item
statistics matrix, and ``scores_from_stats`` scores all resampled corpora at once. Random draws
and p-values follow sacrebleu 2.6 (``significance.py``): ``default_rng(seed)``, indices from
``rng.choice`` (bootstrap) or ``rng.integers(2, dtype=bool)`` (approximate randomization),
p = (c + 1) / (n + 1) (Koehn 2004; Riezler & Maxwell 2005, as in multeval). Resamples are
processed in blocks so memory stays bounded; the blocks consume the same random stream as one
big draw, so results equal sacrebleu's up to its float32 rounding of statistics.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .base import Metric, MetricInputError

DEFAULT_SEED = 12345  # sacrebleu's default SACREBLEU_SEED
_BLOCK_CELLS = 4_000_000  # resample × item cells per block (~32 MB of float64)


@dataclass(frozen=True)
class Interval:
    """A bootstrap interval: the actual score, the resample mean, and the 95% bounds."""

    score: float
    mean: float
    low: float
    high: float


@dataclass(frozen=True)
class PairedResult:
    """A paired test of a system against a baseline (scores of both, two-sided p-value)."""

    baseline_score: float
    system_score: float
    p_value: float
    n_samples: int

    @property
    def rank_p_value(self) -> float:
        """``p_value``, but 1 when the two corpus scores are equal (:func:`equal_scores_p`):
        what a table or a ranking reports."""
        return float(equal_scores_p(self.p_value, self.baseline_score, self.system_score))


# Corpus scores this close are equal, as math.isclose(a, b, abs_tol=1e-12) says: far below any
# printed digit, above the float noise of summing the same statistics in another order.
_EQUAL_REL, _EQUAL_ABS = 1e-9, 1e-12


def equal_scores_p(
    p_values: np.ndarray | float, scores_a: np.ndarray | float, scores_b: np.ndarray | float
) -> np.ndarray:
    """p-values with 1 wherever the two systems' corpus scores are equal.

    sacrebleu's p-value (after multeval, Koehn 2004; Riezler & Maxwell 2005) counts resamples
    strictly beyond the observed difference, so a zero difference gets p = 1/(n+1), below 0.05
    from 20 resamples on: a system against itself would be "significantly different". Equal
    scores give no evidence for either order, so whatever ranks or stars systems (``dbleu``'s
    tables, the web app's leaderboards and compare page) reports p = 1 for them, through this
    one rule; the tests themselves keep sacrebleu's value.

    Args:
        p_values: raw p-values, a scalar or an array broadcast against the scores.
        scores_a, scores_b: the corpus scores of the two sides of each test (for every pair of
            n systems: ``scores[:, None]`` and ``scores[None, :]`` with an ``(n, n)`` matrix).

    Returns:
        The p-values (float64 array, scalar-shaped for scalars), 1 where
        ``math.isclose(a, b, abs_tol=1e-12)``.
    """
    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    tolerance = np.maximum(_EQUAL_REL * np.maximum(np.abs(a), np.abs(b)), _EQUAL_ABS)
    return np.where(np.abs(a - b) <= tolerance, 1.0, np.asarray(p_values, dtype=np.float64))


def _block_rows(n_items: int, multiple: int = 1) -> int:
    rows = max(_BLOCK_CELLS // max(n_items, 1), 1)
    return max(rows // multiple, 1) * multiple


def item_count_blocks(
    n_items: int, n_samples: int, seed: int | None, block_rows: int | None = None
) -> Iterator[tuple[int, np.ndarray]]:
    """The bootstrap's resamples of items (Koehn 2004), a block of rows at a time.

    Yields ``(start, counts)``: ``counts[r, i]`` (float64) is how many times resample
    ``start + r`` drew item i. The draws are ``default_rng(seed)``'s ``rng.choice(n_items,
    size=(rows, n_items))``, one call per block (sacrebleu's draw); the blocks consume the same
    random stream as one call for every resample, so ``block_rows`` (default: some 4 million
    cells a block) never changes a count. Every bootstrap of this library draws items here."""
    rng = np.random.default_rng(seed)
    block = block_rows or _block_rows(n_items)
    for start in range(0, n_samples, block):
        rows = min(block, n_samples - start)
        idx = rng.choice(n_items, size=(rows, n_items), replace=True)
        flat = (idx + (np.arange(rows) * n_items)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * n_items).reshape(rows, n_items)
        yield start, counts.astype(np.float64)


def _resampled_sums(stats: list[np.ndarray], n_samples: int, seed: int | None) -> list[np.ndarray]:
    """Column sums of ``n_samples`` bootstrap resamples of rows, one array per matrix."""
    out = [np.empty((n_samples, s.shape[1])) for s in stats]
    for start, counts in item_count_blocks(len(stats[0]), n_samples, seed):
        for s, o in zip(stats, out, strict=True):
            o[start : start + len(counts)] = counts @ s
    return out


def _check(stats: np.ndarray) -> np.ndarray:
    stats = np.asarray(stats, dtype=np.float64)
    if stats.ndim != 2 or len(stats) == 0:
        raise MetricInputError("statistics must be a non-empty (n_items, n_stats) matrix")
    return stats


def percentile_bounds(scores: np.ndarray) -> tuple[float, float]:
    """sacrebleu's 95% bounds: sorted scores at n // 40 and n − n // 40 − 1."""
    ordered = np.sort(scores)
    lower = len(ordered) // 40
    return float(ordered[lower]), float(ordered[len(ordered) - lower - 1])


def bootstrap_replicates(
    metric: Metric, stats: np.ndarray, n_samples: int = 1000, seed: int | None = DEFAULT_SEED
) -> np.ndarray:
    """The corpus scores of ``n_samples`` bootstrap resamples of the items (Koehn 2004), the
    draws of :func:`item_count_blocks`: what :func:`bootstrap_ci` takes the bounds of.

    Args:
        metric: the metric whose ``scores_from_stats`` scores summed statistics.
        stats: per-item statistics ``(n_items, n_stats)``.
        n_samples: resamples.
        seed: the random seed (sacrebleu's default).

    Returns:
        Shape ``(n_samples,)``; two systems' replicates at one seed are paired (same draws)."""
    (sums,) = _resampled_sums([_check(stats)], n_samples, seed)
    out: np.ndarray = metric.scores_from_stats(sums)
    return out


def bootstrap_ci(
    metric: Metric, stats: np.ndarray, n_samples: int = 1000, seed: int | None = DEFAULT_SEED
) -> Interval:
    """95% bootstrap interval of the corpus score (Koehn 2004): resample items with replacement."""
    stats = _check(stats)
    scores = bootstrap_replicates(metric, stats, n_samples, seed)
    low, high = percentile_bounds(scores)
    return Interval(_corpus_score(metric, stats), float(scores.mean()), low, high)


def _corpus_score(metric: Metric, stats: np.ndarray) -> float:
    return float(metric.scores_from_stats(stats.sum(axis=0)))


def _p_value(samples: np.ndarray, observed: float) -> float:
    return float((np.sum(samples > observed) + 1) / (len(samples) + 1))


def _paired(baseline: np.ndarray, system: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    baseline, system = _check(baseline), _check(system)
    if baseline.shape != system.shape:
        raise MetricInputError(f"statistics shapes differ: {baseline.shape} vs {system.shape}")
    return baseline, system


def paired_bootstrap(
    metric: Metric,
    baseline: np.ndarray,
    system: np.ndarray,
    n_samples: int = 1000,
    seed: int | None = DEFAULT_SEED,
) -> PairedResult:
    """Paired bootstrap resampling (Koehn 2004), p-value as sacrebleu's ``_paired_bs_test``."""
    baseline, system = _paired(baseline, system)
    bl_sums, sys_sums = _resampled_sums([baseline, system], n_samples, seed)
    bl_score, sys_score = _corpus_score(metric, baseline), _corpus_score(metric, system)
    diffs = np.abs(metric.scores_from_stats(sys_sums) - metric.scores_from_stats(bl_sums))
    p = _p_value(diffs - diffs.mean(), abs(bl_score - sys_score))
    return PairedResult(bl_score, sys_score, p, n_samples)


def paired_approximate_randomization(
    metric: Metric,
    baseline: np.ndarray,
    system: np.ndarray,
    n_samples: int = 10000,
    seed: int | None = DEFAULT_SEED,
) -> PairedResult:
    """Paired approximate randomization (Riezler & Maxwell 2005), as sacrebleu's AR test."""
    baseline, system = _paired(baseline, system)
    n = len(baseline)
    rng = np.random.default_rng(seed)
    bl_score, sys_score = _corpus_score(metric, baseline), _corpus_score(metric, system)
    diffs = np.empty(n_samples)
    block = _block_rows(n, multiple=32)  # whole 32-bit draws per block: same stream as one draw
    for start in range(0, n_samples, block):
        rows = min(block, n_samples - start)
        pos = rng.integers(2, size=(rows, n), dtype=bool).astype(np.float64)
        neg = 1.0 - pos
        a = metric.scores_from_stats(pos @ baseline + neg @ system)
        b = metric.scores_from_stats(neg @ baseline + pos @ system)
        diffs[start : start + rows] = np.abs(a - b)
    return PairedResult(bl_score, sys_score, _p_value(diffs, abs(bl_score - sys_score)), n_samples)


def paired_bootstrap_matrix(
    metric: Metric,
    systems: list[np.ndarray],
    n_samples: int = 1000,
    seed: int | None = DEFAULT_SEED,
) -> np.ndarray:
    """Paired bootstrap p-values of every pair of systems at once (Koehn 2004).

    All systems are resampled with the same item indices (one draw, as ``paired_bootstrap``
    makes for one pair from the same seed), so entry ``[i, j]`` equals
    ``paired_bootstrap(metric, systems[i], systems[j], n_samples, seed).p_value`` while the
    resampling costs one pass per system instead of one per pair.

    Args:
        metric: the metric whose ``scores_from_stats`` scores summed statistics.
        systems: per-item statistics matrices of equal shape ``(n_items, n_stats)``.
        n_samples: bootstrap resamples.
        seed: the random seed (sacrebleu's default).

    Returns:
        A symmetric ``(n, n)`` matrix of two-sided p-values with ones on the diagonal.
    """
    checked = [_check(s) for s in systems]
    if any(s.shape != checked[0].shape for s in checked):
        raise MetricInputError("statistics shapes differ between systems")
    n = len(checked)
    p = np.ones((n, n))
    if n < 2:
        return p
    sums = _resampled_sums(checked, n_samples, seed)
    resampled = np.stack([metric.scores_from_stats(s) for s in sums])  # (n, n_samples)
    actual = np.array([_corpus_score(metric, s) for s in checked])
    for i in range(n - 1):  # row i against every later system at once, as _p_value does
        diffs = np.abs(resampled[i + 1 :] - resampled[i])
        centred = diffs - diffs.mean(axis=1, keepdims=True)
        observed = np.abs(actual[i + 1 :] - actual[i])[:, None]
        row = (np.sum(centred > observed, axis=1) + 1) / (n_samples + 1)
        p[i, i + 1 :] = row
        p[i + 1 :, i] = row
    return p


def holm_adjust(p_values: np.ndarray) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (Holm 1979), controlling the family-wise error rate.

    Args:
        p_values: a flat array of the family's m p-values.

    Returns:
        The adjusted p-values in the same order: the k-th smallest becomes
        ``max over l ≤ k of min(1, (m − l + 1) · p_(l))``; reject where it is below alpha.
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted
