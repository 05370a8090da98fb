"""Is one metric's correlation with the humans significantly higher than another's, and the
significance clusters of many metrics (METHODS.md, "Meta-evaluation").

PERM-BOTH (Deutsch, Dror & Roth 2021, sec. 4): z-score each metric's segment scores (over
the responses that every compared side has), then in each of k draws swap the two metrics'
normalised scores at random positions (each with probability ½) and recompute both
correlations the same way as the observed ones. The one-sided p-value that A correlates
better than B is the share of draws whose difference corr(A*) − corr(B*) is ≥ the observed
corr(A) − corr(B). Under the null that the two metrics are exchangeable, every swap pattern
is equally likely, which is what makes the p-value valid (tests check its calibration by
simulation). Draws are vectorised: a (draws, responses) 0/1 swap matrix M gives
A* = A + M ∘ (B − A) and B* = B − M ∘ (B − A) for a chunk of draws at once.

"The same way" is a `CorrelationFn` (`correlation_method`): system level (each system's mean
over its responses, then Pearson/Spearman/Kendall over systems), or segment level without
grouping or item-grouped (`segments`). Grids are always (systems, items), NaN where missing.

Clusters (WMT's rank groups, as in mt-metrics-eval's rank assignment): metrics sorted by
correlation, best first. The best metric heads cluster 1; going down the list, a metric joins
the current cluster when the head is not significantly better than it (p ≥ α), and the first
metric that the head beats significantly (p < α) heads the next cluster, ranked one lower.
Clusters are runs of the sorted list, so a rank never goes back up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from .correlation import kendall_rows, pearson_rows, spearman_rows
from .segments import STATISTICS, item_correlations

# Draws handled at once: memory is a few arrays of CHUNK × responses floats.
SWAP_CHUNK = 50

# A batch of metric grids (draws, systems, items) and the human grid (systems, items) to one
# correlation per draw.
CorrelationFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _rows(statistic: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    rows = {"pearson": pearson_rows, "spearman": spearman_rows, "kendall": kendall_rows}
    if statistic not in rows:
        raise ValueError(f"unknown statistic {statistic!r}: one of {', '.join(STATISTICS)}")
    return rows[statistic]  # type: ignore[return-value]


def correlation_method(level: str, statistic: str = "pearson") -> CorrelationFn:
    """A `CorrelationFn`: `level` "system" (means per system over its responses, then the
    correlation over systems), "none" (over all responses) or "item" (item-grouped average,
    items without a correlation left out). Cells missing in the human grid are ignored."""
    rows = _rows(statistic)

    def system(metric: np.ndarray, human: np.ndarray) -> np.ndarray:
        ok = np.isfinite(metric) & np.isfinite(human)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.where(ok, metric, 0.0).sum(axis=-1) / ok.sum(axis=-1)
            h = np.where(ok, human, 0.0).sum(axis=-1) / ok.sum(axis=-1)
        h = np.broadcast_to(h, m.shape)
        return rows(m, h)

    def flat(metric: np.ndarray, human: np.ndarray) -> np.ndarray:
        ok = np.isfinite(metric[0]) & np.isfinite(human)
        if ok.sum() < 2:
            return np.full(metric.shape[0], np.nan)
        return rows(metric[:, ok], np.broadcast_to(human[ok], (metric.shape[0], int(ok.sum()))))

    def grouped(metric: np.ndarray, human: np.ndarray) -> np.ndarray:
        values = item_correlations(metric, np.broadcast_to(human, metric.shape), statistic)
        with np.errstate(invalid="ignore"):
            return np.nanmean(np.where(np.isfinite(values), values, np.nan), axis=-1)

    levels = {"system": system, "none": flat, "item": grouped}
    if level not in levels:
        raise ValueError(f"unknown level {level!r}: one of {', '.join(levels)}")
    return levels[level]


@dataclass(frozen=True)
class PermBoth:
    """PERM-BOTH of metric A against metric B: both correlations, their difference, the
    one-sided p-value that A is better, and the number of draws."""

    corr_a: float
    corr_b: float
    delta: float
    p_value: float
    draws: int


def _zscore(grid: np.ndarray, ok: np.ndarray) -> np.ndarray:
    values = grid[ok]
    sd = values.std()
    return np.where(ok, (grid - values.mean()) / (sd if sd > 0 else 1.0), np.nan)


def perm_both(
    human: np.ndarray,
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    *,
    correlation_fn: CorrelationFn,
    draws: int = 1000,
    seed: int = 0,
) -> PermBoth:
    """PERM-BOTH (see the module docstring). `human`, `metric_a`, `metric_b`: (systems, items)
    grids, NaN where missing; the responses used are those all three have. Deterministic
    given `seed`."""
    h, a, b = (np.asarray(g, dtype=np.float64) for g in (human, metric_a, metric_b))
    if not h.ndim == 2 or not h.shape == a.shape == b.shape:
        raise ValueError("human and metric grids must share one shape (systems, items)")
    ok = np.isfinite(h) & np.isfinite(a) & np.isfinite(b)
    h = np.where(ok, h, np.nan)
    a, b = _zscore(a, ok), _zscore(b, ok)
    corr_a, corr_b = (float(correlation_fn(g[None], h)[0]) for g in (a, b))
    delta = corr_a - corr_b
    rows, cols = np.nonzero(ok)
    gap = (b - a)[rows, cols]
    rng = np.random.default_rng([seed, 0x9E2])
    hits, total = 0, 0
    for start in range(0, draws, SWAP_CHUNK):
        n = min(SWAP_CHUNK, draws - start)
        swap = rng.integers(0, 2, size=(n, rows.size)).astype(np.float64)
        a_star = np.broadcast_to(a, (n, *a.shape)).copy()
        b_star = np.broadcast_to(b, (n, *b.shape)).copy()
        a_star[:, rows, cols] += swap * gap
        b_star[:, rows, cols] -= swap * gap
        diff = correlation_fn(a_star, h) - correlation_fn(b_star, h)
        hits += int((diff >= delta - 1e-12).sum())
        total += n
    p = hits / total if total and np.isfinite(delta) else float("nan")
    return PermBoth(corr_a, corr_b, delta, p, draws)


def _pair_seed(seed: int, a: int, b: int) -> int:
    return int(np.random.SeedSequence([seed, a, b]).generate_state(1)[0])


@dataclass(frozen=True)
class MetricRank:
    """A metric's place in the clusters: its correlation, its cluster's rank (1 = best), the
    head of its cluster and the p-value that the head is better (NaN for a head)."""

    name: str
    correlation: float
    rank: int
    head: str
    p_vs_head: float


def significance_clusters(
    human: np.ndarray,
    metrics: Mapping[str, np.ndarray],
    *,
    correlation_fn: CorrelationFn,
    alpha: float = 0.05,
    draws: int = 1000,
    seed: int = 0,
) -> list[MetricRank]:
    """The metrics in clusters of equal rank (see the module docstring), best first.

    `human` and every metric: (systems, items) grids, NaN where missing; each metric is
    correlated on the cells it shares with the humans, each PERM-BOTH on the cells the pair
    shares. Metrics without a correlation (NaN) come last, unranked (rank 0). Each test has
    its own seed, drawn from `seed` and the two metrics' positions in `metrics`."""
    names = list(metrics)
    h = np.asarray(human, dtype=np.float64)
    corr = {
        n: float(correlation_fn(np.asarray(metrics[n], dtype=np.float64)[None], h)[0])
        for n in names
    }
    ranked = sorted((n for n in names if np.isfinite(corr[n])), key=lambda n: -corr[n])
    out: list[MetricRank] = []
    head, rank = None, 0
    for name in ranked:
        if head is None:
            head, rank = name, 1
            out.append(MetricRank(name, corr[name], rank, head, float("nan")))
            continue
        test = perm_both(
            h,
            metrics[head],
            metrics[name],
            correlation_fn=correlation_fn,
            draws=draws,
            seed=_pair_seed(seed, names.index(head), names.index(name)),
        )
        if test.p_value < alpha:
            head, rank = name, rank + 1
            out.append(MetricRank(name, corr[name], rank, head, float("nan")))
        else:
            out.append(MetricRank(name, corr[name], rank, head, test.p_value))
    out += [MetricRank(n, corr[n], 0, "", float("nan")) for n in names if n not in ranked]
    return out
