"""Rank correlations of many observation sets at once, their intervals, and significance.

Every function takes arrays of shape ``(n_sets, n_obs)`` — one row per random assignment of
items to units, or per bootstrap replicate — and returns one value per row, equal to scipy's
``spearmanr`` and ``kendalltau`` (τ-b) on that row (tests check it).

Point estimates are the paper's: a coefficient averaged over the random assignments.

Intervals resample items. The observation units are not independent: every system pair is
judged on the same items, so an item that happens to favour one metric recurs in all 45 pairs
of 10 systems, and the units of one pair share their items with the units of every other pair.
The interval this engine used before — Fisher's z with N = the number of units (Fieller,
Hartley & Pearson 1957) — assumed N independent observations and was too narrow, the more so
the more pairs share the items. Now each bootstrap replicate resamples the items with
replacement once, for all pairs at once (`units.ItemBootstrap`), cuts them into units, and
computes the coefficient; the 95% interval is the 2.5th–97.5th percentiles of the replicates.
A replicate uses one assignment, so its spread also carries the luck of one assignment, which
the averaged point estimate does not have: the interval errs on the wide side by that much
(`spread_low`/`spread_high`, the percentiles over assignments, show how much it is).

The difference between two metrics (`paired_difference`) uses the same replicates for both
metrics and the humans (a paired bootstrap, Koehn 2004 style).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

# Kendall's τ from all pairs costs n_obs² per row; past this, scipy's O(n log n) per row.
KENDALL_PAIRWISE_MAX = 1500
# Pairs compared at once (memory of one step: a byte per pair), and the most memory that the
# humans' pair orders shared by every metric may take.
PAIRS_PER_CHUNK = 4_000_000
PAIR_ORDER_BYTES = 256 * 2**20


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n along the last axis, ties given their average rank (scipy's ``rankdata``).

    All rows are handled at once: after a row-wise sort, equal neighbours form tie groups
    (a row's first element always starts one), and each element's rank is the mean of its
    group's first and last positions. The sort need not be stable: the members of a tie group
    all get the same rank whatever their order inside it.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[-1]
    rows = x.reshape(-1, n)
    order = np.argsort(rows, axis=-1)
    ordered = np.take_along_axis(rows, order, axis=-1)
    starts = np.empty(ordered.shape, dtype=bool)
    starts[:, :1] = True
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=starts[:, 1:])
    flat = starts.ravel()
    first = np.flatnonzero(flat)  # flat index of each group's first element
    group = np.cumsum(flat) - 1
    end = np.append(first[1:], flat.size)  # one past each group's last element
    row_start = np.repeat(np.arange(0, flat.size, n), n) if n else np.zeros(0, dtype=np.int64)
    mean_rank = (first[group] + end[group] - 1) / 2.0 - row_start + 1.0
    ranks = np.empty_like(ordered)
    np.put_along_axis(ranks, order, mean_rank.reshape(ordered.shape), axis=-1)
    return ranks.reshape(x.shape)


def pearson_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of `a` with the same row of `b` (NaN when one is constant)."""
    a = a - a.mean(axis=-1, keepdims=True)
    b = b - b.mean(axis=-1, keepdims=True)
    den = np.sqrt((a * a).sum(axis=-1) * (b * b).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (a * b).sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan)


def spearman_rows(
    m: np.ndarray, q: np.ndarray | None, q_ranks: np.ndarray | None = None
) -> np.ndarray:
    """Spearman's ρ of each row of `m` with the same row of `q` (NaN when one is constant).

    `q_ranks` (the ranks of `q`) may be passed instead of `q` when many metrics share it."""
    if q_ranks is None:
        if q is None:
            raise ValueError("spearman_rows needs q or its ranks")
        q_ranks = average_ranks(q)
    return pearson_rows(average_ranks(m), q_ranks)


@dataclass(frozen=True)
class PairOrder:
    """For each row of x, which ordered pairs go up and which go down, as packed bits.

    `up[r, i]` packs the booleans x_j > x_i over j (`np.packbits` along the last axis, padded
    to whole 64-bit words), `down[r, i]` packs x_j < x_i, and `untied[r]` counts the ordered
    pairs that are not tied. Packing keeps n²/4 bytes per row instead of 2n² booleans, and the
    counts below become popcounts of 64 pairs at a time.
    """

    up: np.ndarray
    down: np.ndarray
    untied: np.ndarray

    def __getitem__(self, rows: slice) -> PairOrder:
        return PairOrder(self.up[rows], self.down[rows], self.untied[rows])


def _popcount(packed: np.ndarray) -> np.ndarray:
    return np.bitwise_count(packed).sum(axis=(-2, -1), dtype=np.int64)


def _ranks16(x: np.ndarray) -> np.ndarray:
    """Twice the average ranks, as int16: the same order and ties as `x`, and comparisons of
    2-byte integers cost a third of those of floats (n ≤ KENDALL_PAIRWISE_MAX fits)."""
    return (2 * average_ranks(x)).astype(np.int16)


def _bits(r: np.ndarray, up: bool) -> np.ndarray:
    """Packed r_j > r_i (or r_j < r_i) over j for each row and i of int16 ranks `r`, as
    uint64 words: the padding columns compare false. Rows go a chunk at a time, so that the
    booleans before packing (n² bytes a row) stay small."""
    n_rows, n = r.shape
    width = -(-n // 64) * 64
    padded = np.full((n_rows, width), -1 if up else np.iinfo(np.int16).max, np.int16)
    padded[:, :n] = r
    compare = np.greater if up else np.less
    out = np.empty((n_rows, n, width // 8), np.uint8)
    chunk = max(1, PAIRS_PER_CHUNK // max(n * width, 1))
    for start in range(0, n_rows, chunk):
        rows = slice(start, start + chunk)
        cmp = compare(padded[rows, None, :], r[rows, :, None])
        out[rows] = np.packbits(cmp, axis=-1)
    return out.view(np.uint64)


def _rows(ranks: np.ndarray | None, rows: slice) -> np.ndarray | None:
    return None if ranks is None else ranks[rows]


def pair_order(x: np.ndarray, ranks: np.ndarray | None = None) -> PairOrder:
    """`PairOrder` of each row of the 2-D array `x` (or of its `_ranks16`)."""
    r = _ranks16(x) if ranks is None else ranks
    up = _bits(r, up=True)
    return PairOrder(up, _bits(r, up=False), 2 * _popcount(up))


def shared_pair_order(q: np.ndarray) -> PairOrder | None:
    """`pair_order(q)` to share among many metrics' `kendall_rows`, or None when it would take
    more than `PAIR_ORDER_BYTES` (each call then works it out chunk by chunk)."""
    rows, n = np.atleast_2d(q).shape
    if n > KENDALL_PAIRWISE_MAX or rows * n * -(-n // 64) * 8 * 2 > PAIR_ORDER_BYTES:
        return None
    return pair_order(np.atleast_2d(q))


def kendall_rows(m: np.ndarray, q: np.ndarray, q_order: PairOrder | None = None) -> np.ndarray:
    """Kendall's τ-b of each row of `m` with the same row of `q` (NaN when one is constant).

    `q_order` (`shared_pair_order(q)`) may be passed in when many metrics share one `q`."""
    return kendall_many(m, [q], [q_order])[0]


def kendall_many(
    m: np.ndarray,
    qs: Sequence[np.ndarray],
    q_orders: Sequence[PairOrder | None] | None = None,
    m_ranks: np.ndarray | None = None,
) -> list[np.ndarray]:
    """Kendall's τ-b of each row of `m` with the same row of each `q` in `qs`.

    Counted over all ordered pairs: concordant pairs are those where both go up, discordant
    where one goes up and the other down; each unordered pair is seen twice, which cancels in
    τ-b = (C − D) / √((n₀ − n₁)(n₀ − n₂)). The metric's pair order is worked out once for all
    `qs` (several criteria share the metric's observations); `m_ranks` (`average_ranks(m)`)
    may be passed when already known."""
    m = np.atleast_2d(m)
    qs = [np.atleast_2d(q) for q in qs]
    orders = list(q_orders) if q_orders is not None else [None] * len(qs)
    n = m.shape[-1]
    if n > KENDALL_PAIRWISE_MAX:
        return [
            np.array([sps.kendalltau(a, b).statistic for a, b in zip(m, q, strict=True)])
            for q in qs
        ]
    m16 = _ranks16(m) if m_ranks is None else (2 * m_ranks).astype(np.int16)
    # Criteria without a shared pair order have theirs worked out chunk by chunk, from ranks.
    q_ranks = [_ranks16(q) if order is None else None for q, order in zip(qs, orders, strict=True)]
    outs = [np.empty(m.shape[0]) for _ in qs]
    chunk = max(1, PAIRS_PER_CHUNK // max(n * n, 1))
    for start in range(0, m.shape[0], chunk):
        rows = slice(start, start + chunk)
        m_up = _bits(m16[rows], up=True)
        m_untied = 2.0 * _popcount(m_up)
        for q, order, ranks, out in zip(qs, orders, q_ranks, outs, strict=True):
            q_rows = order[rows] if order is not None else pair_order(q[rows], _rows(ranks, rows))
            concord = _popcount(m_up & q_rows.up).astype(np.float64)
            discord = _popcount(m_up & q_rows.down)
            den = np.sqrt(m_untied * q_rows.untied)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[rows] = np.where(
                    den > 0, 2 * (concord - discord) / np.where(den > 0, den, 1), np.nan
                )
    return outs


@dataclass(frozen=True)
class Summary:
    """A coefficient averaged over assignments, its 95% bootstrap interval over items, and the
    spread over assignments (2.5th and 97.5th percentiles)."""

    mean: float
    low: float
    high: float
    spread_low: float
    spread_high: float

    def as_dict(self) -> dict[str, float]:
        return {
            "value": self.mean,
            "low": self.low,
            "high": self.high,
            "spread_low": self.spread_low,
            "spread_high": self.spread_high,
        }


def percentiles(values: np.ndarray) -> tuple[float, float]:
    """2.5th and 97.5th percentiles of the finite values (NaN, NaN if there are none)."""
    finite = np.asarray(values, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    if not finite.size:
        return (float("nan"), float("nan"))
    low, high = np.percentile(finite, [2.5, 97.5])
    return (float(low), float(high))


def summarize(values: np.ndarray, replicates: np.ndarray) -> Summary:
    """The mean of `values` (one per assignment) with the percentile interval of `replicates`
    (one per bootstrap replicate of the items; see the module docstring)."""
    finite = values[np.isfinite(values)]
    if not finite.size:
        nan = float("nan")
        return Summary(nan, nan, nan, nan, nan)
    low, high = percentiles(replicates)
    spread = percentiles(finite)
    return Summary(float(finite.mean()), low, high, *spread)


@dataclass(frozen=True)
class Difference:
    """ρ(X) − ρ(Y) with its 95% interval and a two-sided p-value."""

    diff: float
    low: float
    high: float
    p_value: float

    def as_dict(self) -> dict[str, float]:
        return {"diff": self.diff, "low": self.low, "high": self.high, "p": self.p_value}


def paired_difference(
    x: np.ndarray, y: np.ndarray, x_boot: np.ndarray, y_boot: np.ndarray
) -> Difference:
    """Is metric X's correlation with humans different from metric Y's?

    `x`, `y`: the coefficients per assignment; `x_boot`, `y_boot`: per bootstrap replicate,
    on the same resampled items and units for both metrics and the humans. The difference is
    that of the means over assignments; its interval the 2.5th–97.5th percentiles of the
    replicates' differences, and the p-value twice the smaller share of them on either side
    of 0 (Koehn 2004 style, capped at 1)."""
    observed = float(np.nanmean(x) - np.nanmean(y)) if np.isfinite(x).any() else float("nan")
    d = x_boot - y_boot
    d = d[np.isfinite(d)]
    if not d.size or not np.isfinite(y).any():
        return Difference(observed, float("nan"), float("nan"), float("nan"))
    p = min(1.0, 2.0 * min(float((d <= 0).mean()), float((d >= 0).mean())))
    low, high = np.percentile(d, [2.5, 97.5])
    return Difference(observed, float(low), float(high), p)
