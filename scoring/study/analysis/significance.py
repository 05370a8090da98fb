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

"The same way" is a `Correlation` (`correlation_method`): system level (each system's mean
over its responses, then Pearson/Spearman/Kendall over systems), or segment level without
grouping or item-grouped (`segments`). Grids are always (systems, items), NaN where missing.

Clusters (WMT's rank groups, mt-metrics-eval's `AssignRanks`): metrics sorted by correlation,
best first; going down the list, a metric joins the current cluster unless some metric of that
cluster above it is significantly better (p ≤ α), in which case it starts the next cluster,
ranked one lower. Clusters are runs of the sorted list, so a rank never goes back up.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from .correlation import kendall_rows, pearson_rows, spearman_rows
from .segments import STATISTICS, item_correlations

# Draws handled at once: memory is a few arrays of CHUNK × responses floats.
SWAP_CHUNK = 50
LEVELS = ("system", "none", "item")
# Item-grouped draws are computed a few at a time: at most this many (item, system pair)
# cells per step (Kendall's per-item pairs are the largest arrays).
ITEM_CELLS = 2_000_000


def _rows(statistic: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    rows = {"pearson": pearson_rows, "spearman": spearman_rows, "kendall": kendall_rows}
    if statistic not in rows:
        raise ValueError(f"unknown statistic {statistic!r}: one of {', '.join(STATISTICS)}")
    return rows[statistic]  # type: ignore[return-value]


@dataclass(frozen=True)
class Responses:
    """Where responses sit in a (systems, items) grid of `shape`, and the humans' scores of
    them: the layout that every draw of a permutation test shares."""

    rows: np.ndarray
    cols: np.ndarray
    shape: tuple[int, int]
    human: np.ndarray

    @classmethod
    def of(cls, ok: np.ndarray, human: np.ndarray) -> Responses:
        rows, cols = np.nonzero(ok)
        return cls(rows, cols, (int(ok.shape[0]), int(ok.shape[1])), human[rows, cols])


@dataclass(frozen=True)
class Correlation:
    """How a correlation of metric and human scores is computed: `level` "system" (each
    system's mean over its responses, then the correlation over systems), "none" (over all
    responses) or "item" (the item-grouped average, items without a correlation left out);
    `statistic` Pearson, Spearman or Kendall's τ-b."""

    level: str
    statistic: str = "pearson"

    def __post_init__(self) -> None:
        _rows(self.statistic)
        if self.level not in LEVELS:
            raise ValueError(f"unknown level {self.level!r}: one of {', '.join(LEVELS)}")

    def __call__(self, metric: np.ndarray, human: np.ndarray) -> np.ndarray:
        """One value per grid of `metric` (draws, systems, items) against `human` (systems,
        items), over the cells where both have a score (those of the first draw)."""
        ok = np.isfinite(metric[0]) & np.isfinite(human)
        layout = Responses.of(ok, human)
        return self.of_responses(metric[:, layout.rows, layout.cols], layout)

    def of_responses(self, values: np.ndarray, layout: Responses) -> np.ndarray:
        """One value per row of `values` (draws, responses), the metric's scores of the
        responses in `layout`."""
        rows = _rows(self.statistic)
        if layout.rows.size < 2:
            return np.full(values.shape[0], np.nan)
        if self.level == "none":
            return rows(values, np.broadcast_to(layout.human, values.shape))
        if self.level == "system":
            # Per-system sums are one product with the (responses, systems) indicator.
            member = np.zeros((layout.rows.size, layout.shape[0]))
            member[np.arange(layout.rows.size), layout.rows] = 1.0
            with np.errstate(invalid="ignore", divide="ignore"):
                count = member.sum(axis=0)
                m, h = values @ member / count, layout.human @ member / count
            has = count > 0
            return rows(m[:, has], np.broadcast_to(h[has], (values.shape[0], int(has.sum()))))
        human = np.full(layout.shape, np.nan)
        human[layout.rows, layout.cols] = layout.human
        # Kendall per item holds (draws, items, system pairs) arrays: bound them.
        systems, items = layout.shape
        step = max(1, ITEM_CELLS // max(1, items * systems * max(1, systems - 1) // 2))
        out = np.empty(values.shape[0])
        for start in range(0, values.shape[0], step):
            part = values[start : start + step]
            grid = np.full((part.shape[0], *layout.shape), np.nan)
            grid[:, layout.rows, layout.cols] = part
            per_item = item_correlations(grid, np.broadcast_to(human, grid.shape), self.statistic)
            with warnings.catch_warnings():  # an all-NaN draw is NaN
                warnings.simplefilter("ignore", RuntimeWarning)
                out[start : start + step] = np.nanmean(per_item, axis=-1)
        return out


def correlation_method(level: str, statistic: str = "pearson") -> Correlation:
    """`Correlation(level, statistic)`, checked."""
    return Correlation(level, statistic)


@dataclass(frozen=True)
class PermBoth:
    """PERM-BOTH of metric A against metric B: both correlations, their difference, the
    one-sided p-value that A is better, and the number of draws."""

    corr_a: float
    corr_b: float
    delta: float
    p_value: float
    draws: int


def _coin_flips(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """A (rows, cols) 0/1 matrix of fair coin flips, eight to a random byte."""
    packed = rng.integers(0, 256, size=(rows, -(-cols // 8)), dtype=np.uint8)
    return np.unpackbits(packed, axis=1, count=cols)


def _zscore(values: np.ndarray) -> np.ndarray:
    sd = values.std()
    return (values - values.mean()) / (sd if sd > 0 else 1.0)


def perm_both(
    human: np.ndarray,
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    *,
    correlation_fn: Correlation,
    draws: int = 1000,
    seed: int = 0,
) -> PermBoth:
    """PERM-BOTH (see the module docstring). `human`, `metric_a`, `metric_b`: (systems, items)
    grids, NaN where missing; the responses used are those all three have. Deterministic
    given `seed`."""
    h, a, b = (np.asarray(g, dtype=np.float64) for g in (human, metric_a, metric_b))
    if not h.ndim == 2 or not h.shape == a.shape == b.shape:
        raise ValueError("human and metric grids must share one shape (systems, items)")
    layout = Responses.of(np.isfinite(h) & np.isfinite(a) & np.isfinite(b), h)
    if layout.rows.size < 2:
        nan = float("nan")
        return PermBoth(nan, nan, nan, nan, draws)
    a, b = _zscore(a[layout.rows, layout.cols]), _zscore(b[layout.rows, layout.cols])
    corr_a, corr_b = (float(correlation_fn.of_responses(v[None], layout)[0]) for v in (a, b))
    delta = corr_a - corr_b
    gap = b - a
    rng = np.random.default_rng([seed, 0x9E2])
    sums = _shortcut(correlation_fn, a, b, layout)
    hits, total = 0, 0
    for start in range(0, draws, SWAP_CHUNK):
        n = min(SWAP_CHUNK, draws - start)
        flips = _coin_flips(rng, n, a.size)
        if sums is not None:
            diff = sums.differences(flips)
        else:
            moved = flips * gap
            diff = correlation_fn.of_responses(a + moved, layout) - correlation_fn.of_responses(
                b - moved, layout
            )
        hits += int((diff >= delta - 1e-12).sum())
        total += n
    p = hits / total if total and np.isfinite(delta) else float("nan")
    return PermBoth(corr_a, corr_b, delta, p, draws)


def _shortcut(
    correlation_fn: Correlation, a: np.ndarray, b: np.ndarray, layout: Responses
) -> _PearsonSums | _SystemSums | None:
    """A way to get a chunk's differences from one product with the swaps, when there is one
    (Pearson over all responses; any statistic at system level)."""
    if correlation_fn.level == "none" and correlation_fn.statistic == "pearson":
        return _PearsonSums(a, b, layout.human)
    if correlation_fn.level == "system":
        return _SystemSums(a, b, layout, correlation_fn)
    return None


class _SystemSums:
    """System level: each system's sum of a* = a + M∘g is its sum of a plus M @ (g per
    system), and b*'s the same minus it: one product of the swaps with (responses, systems)
    per chunk, then the correlation over systems of the two sets of means."""

    def __init__(self, a: np.ndarray, b: np.ndarray, layout: Responses, fn: Correlation):
        member = np.zeros((layout.rows.size, layout.shape[0]))
        member[np.arange(layout.rows.size), layout.rows] = 1.0
        count = member.sum(axis=0)
        self.has = count > 0
        member, count = member[:, self.has], count[self.has]
        self.count, self.rows = count, _rows(fn.statistic)
        self.shifts = (b - a)[:, None] * member
        self.a, self.b = a @ member, b @ member
        self.human = layout.human @ member / count

    def differences(self, flips: np.ndarray) -> np.ndarray:
        d = flips.astype(np.float64) @ self.shifts
        human = np.broadcast_to(self.human, d.shape)
        ra = self.rows((self.a + d) / self.count, human)
        return ra - self.rows((self.b - d) / self.count, human)


class _PearsonSums:
    """Pearson over all responses of both swapped metrics from a few sums: with swaps M (0/1)
    and gap g = b − a, a* = a + M∘g and b* = b − M∘g, so Σa*, Σa*², Σa*h (and b*'s) are the
    unswapped sums plus one product M @ [g, 2ag + g², gh, g² − 2bg] (M² = M). One product of
    (draws, responses) by (responses, 4) instead of four passes over (draws, responses)
    arrays: several times faster at 100,000 responses, the same draws (tests compare)."""

    def __init__(self, a: np.ndarray, b: np.ndarray, h: np.ndarray):
        g = b - a
        self.n, self.h = float(a.size), (float(h.sum()), float((h * h).sum()))
        self.shifts = np.column_stack([g, 2 * a * g + g * g, g * h, g * g - 2 * b * g])
        self.a = (float(a.sum()), float((a * a).sum()), float((a * h).sum()))
        self.b = (float(b.sum()), float((b * b).sum()), float((b * h).sum()))

    def _r(self, sx: np.ndarray, sxx: np.ndarray, sxh: np.ndarray) -> np.ndarray:
        n, (sh, shh) = self.n, self.h
        with np.errstate(invalid="ignore", divide="ignore"):
            den = np.sqrt((n * sxx - sx * sx) * (n * shh - sh * sh))
            return np.where(den > 0, (n * sxh - sx * sh) / np.where(den > 0, den, 1.0), np.nan)

    def differences(self, flips: np.ndarray) -> np.ndarray:
        """corr(a*) − corr(b*) for each row of `flips` (draws, responses)."""
        d = flips.astype(np.float64) @ self.shifts
        ra = self._r(self.a[0] + d[:, 0], self.a[1] + d[:, 1], self.a[2] + d[:, 2])
        rb = self._r(self.b[0] - d[:, 0], self.b[1] + d[:, 3], self.b[2] - d[:, 2])
        return ra - rb


def _pair_seed(seed: int, a: int, b: int) -> int:
    return int(np.random.SeedSequence([seed, a, b]).generate_state(1)[0])


@dataclass(frozen=True)
class MetricRank:
    """A metric's place in the clusters: its correlation, its cluster's rank (1 = best), and
    the strongest evidence against it among the tests that placed it: the smallest p-value
    that a metric above it (`closest`) is better. NaN and "" for the first metric."""

    name: str
    correlation: float
    rank: int
    closest: str
    p_value: float


def significance_clusters(
    human: np.ndarray,
    metrics: Mapping[str, np.ndarray],
    *,
    correlation_fn: Correlation,
    alpha: float = 0.05,
    draws: int = 1000,
    seed: int = 0,
) -> list[MetricRank]:
    """The metrics in clusters of equal rank, best first (WMT's rule, mt-metrics-eval's
    `AssignRanks`): sorted by correlation, each metric is tested against every metric of the
    current cluster above it; if any of them is significantly better (p ≤ `alpha`), it starts
    the next cluster, one rank lower; otherwise it joins the current one. So a metric of rank
    r is significantly worse than none of its own cluster, and clusters are runs of the
    sorted list.

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
    start, rank = 0, 1
    for i, name in enumerate(ranked):
        tests = {
            better: perm_both(
                h,
                metrics[better],
                metrics[name],
                correlation_fn=correlation_fn,
                draws=draws,
                seed=_pair_seed(seed, names.index(better), names.index(name)),
            ).p_value
            for better in ranked[start:i]
        }
        closest = min(tests, key=lambda b: tests[b], default="")
        p = tests[closest] if closest else float("nan")
        if closest and p <= alpha:
            start, rank = i, rank + 1
        out.append(MetricRank(name, corr[name], rank, closest, p))
    out += [MetricRank(n, corr[n], 0, "", float("nan")) for n in names if n not in ranked]
    return out
