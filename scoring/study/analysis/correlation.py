"""Rank correlations of many observation sets at once, their intervals, and significance.

Every function takes arrays of shape ``(n_sets, n_obs)`` — one row per random assignment of
items to units — and returns one value per row, equal to scipy's ``spearmanr`` and
``kendalltau`` (τ-b) on that row (tests check it).

Confidence intervals (the paper's Table 2 prints one per coefficient): the coefficients are
averaged over the assignments, then a 95% interval is put around that mean on Fisher's z scale
with the variances of Fieller, Hartley & Pearson (1957) for N observation units:
``var z(ρ) = 1.06 / (N − 3)`` and ``var z(τ) = 0.437 / (N − 4)``. Averaging over assignments
removes the luck of one assignment but adds no observations, so N is the number of units of one
assignment. The spread over assignments (2.5th and 97.5th percentiles) is reported beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

Z95 = 1.959963984540054
SPEARMAN_Z_VAR = 1.06
KENDALL_Z_VAR = 0.437
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


def _pearson_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
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
    return _pearson_rows(average_ranks(m), q_ranks)


@dataclass(frozen=True)
class PairOrder:
    """For each row of x, which ordered pairs go up and which go down, as packed bits.

    `up[r, i]` packs the booleans x_j > x_i over j (`np.packbits` along the last axis),
    `down[r, i]` packs x_j < x_i, and `untied[r]` counts the ordered pairs that are not tied.
    Packing keeps n²/4 bytes per row instead of 2n² booleans, and the counts below become
    popcounts of eight pairs at a time.
    """

    up: np.ndarray
    down: np.ndarray
    untied: np.ndarray

    def __getitem__(self, rows: slice) -> PairOrder:
        return PairOrder(self.up[rows], self.down[rows], self.untied[rows])


def _popcount(packed: np.ndarray) -> np.ndarray:
    return np.bitwise_count(packed).sum(axis=(-2, -1), dtype=np.int64)


def pair_order(x: np.ndarray) -> PairOrder:
    """`PairOrder` of each row of the 2-D array `x`."""
    greater = x[..., None, :] > x[..., :, None]
    up = np.packbits(greater, axis=-1)
    down = np.packbits(np.swapaxes(greater, -1, -2), axis=-1)
    return PairOrder(up, down, 2 * _popcount(up))


def shared_pair_order(q: np.ndarray) -> PairOrder | None:
    """`pair_order(q)` to share among many metrics' `kendall_rows`, or None when it would take
    more than `PAIR_ORDER_BYTES` (each call then works it out chunk by chunk)."""
    rows, n = np.atleast_2d(q).shape
    if n > KENDALL_PAIRWISE_MAX or rows * n * -(-n // 8) * 2 > PAIR_ORDER_BYTES:
        return None
    return pair_order(np.atleast_2d(q))


def kendall_rows(m: np.ndarray, q: np.ndarray, q_order: PairOrder | None = None) -> np.ndarray:
    """Kendall's τ-b of each row of `m` with the same row of `q` (NaN when one is constant).

    Counted over all ordered pairs: concordant pairs are those where both go up, discordant
    where one goes up and the other down; each unordered pair is seen twice, which cancels in
    τ-b = (C − D) / √((n₀ − n₁)(n₀ − n₂)). `q_order` (`shared_pair_order(q)`) may be passed in
    when many metrics share one `q`."""
    m, q = np.atleast_2d(m), np.atleast_2d(q)
    n = m.shape[-1]
    if n > KENDALL_PAIRWISE_MAX:
        return np.array([sps.kendalltau(a, b).statistic for a, b in zip(m, q, strict=True)])
    out = np.empty(m.shape[0])
    chunk = max(1, PAIRS_PER_CHUNK // max(n * n, 1))
    for start in range(0, m.shape[0], chunk):
        rows = slice(start, start + chunk)
        q_rows = pair_order(q[rows]) if q_order is None else q_order[rows]
        m_up = np.packbits(m[rows, None, :] > m[rows, :, None], axis=-1)
        concord = _popcount(m_up & q_rows.up).astype(np.float64)
        discord = _popcount(m_up & q_rows.down)
        den = np.sqrt(2.0 * _popcount(m_up) * q_rows.untied)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[rows] = np.where(
                den > 0, 2 * (concord - discord) / np.where(den > 0, den, 1), np.nan
            )
    return out


@dataclass(frozen=True)
class Summary:
    """A coefficient averaged over assignments, its 95% interval and the assignments' spread."""

    mean: float
    low: float
    high: float
    spread_low: float
    spread_high: float

    def as_dict(self) -> dict[str, float]:
        return {
            "value": self.mean, "low": self.low, "high": self.high,
            "spread_low": self.spread_low, "spread_high": self.spread_high,
        }  # fmt: skip


def fisher_interval(r: float, n_obs: int, z_var: float) -> tuple[float, float]:
    """95% interval of a correlation `r` from `n_obs` observations on Fisher's z scale."""
    dof = n_obs - (4 if z_var == KENDALL_Z_VAR else 3)
    if not np.isfinite(r) or dof <= 0:
        return (float("nan"), float("nan"))
    z = np.arctanh(np.clip(r, -0.999999, 0.999999))
    half = Z95 * np.sqrt(z_var / dof)
    return (float(np.tanh(z - half)), float(np.tanh(z + half)))


def summarize(values: np.ndarray, n_obs: int, z_var: float) -> Summary:
    """The mean over assignments with its Fisher-z interval (see the module docstring)."""
    finite = values[np.isfinite(values)]
    if not finite.size:
        nan = float("nan")
        return Summary(nan, nan, nan, nan, nan)
    mean = float(finite.mean())
    low, high = fisher_interval(mean, n_obs, z_var)
    spread = np.percentile(finite, [2.5, 97.5])
    return Summary(mean, low, high, float(spread[0]), float(spread[1]))


@dataclass(frozen=True)
class Difference:
    """ρ(X) − ρ(Y) with its 95% interval and a two-sided p-value."""

    diff: float
    low: float
    high: float
    p_value: float

    def as_dict(self) -> dict[str, float]:
        return {"diff": self.diff, "low": self.low, "high": self.high, "p": self.p_value}


class PairedBootstrap:
    """Is metric X's Spearman correlation with humans different from metric Y's?

    A paired bootstrap over assignments: each assignment's units are resampled with
    replacement once (the same draw for X, Y and the humans), giving one ρ_X − ρ_Y per
    assignment; the spread of those differences combines the luck of the assignment and of
    the sample of units. The interval is their 2.5th–97.5th percentiles, and the p-value
    twice the smaller share on either side of 0 (Koehn 2004 style, capped at 1).

    Everything about Y (the draw, the resampled humans' ranks, Y's correlations) is worked
    out once, so comparing many metrics X with one baseline Y costs one ranking each.
    """

    def __init__(self, m_y: np.ndarray, q: np.ndarray, seed: int = 12345):
        rng = np.random.default_rng(seed)
        n_sets, n_obs = q.shape
        self.draw = rng.integers(0, n_obs, size=(n_sets, n_obs))
        self.q = q
        self.q_ranks = average_ranks(q)
        q_b = np.take_along_axis(q, self.draw, axis=1)
        self.q_b_ranks = average_ranks(q_b)
        self.rho_y_b = self._resampled_rho(m_y)
        self.rho_y = float(np.nanmean(spearman_rows(m_y, q, self.q_ranks)))

    def _resampled_rho(self, m: np.ndarray) -> np.ndarray:
        return spearman_rows(np.take_along_axis(m, self.draw, axis=1), None, self.q_b_ranks)

    def difference(self, m_x: np.ndarray) -> Difference:
        """ρ(X) − ρ(Y) with its interval and p-value."""
        observed = float(np.nanmean(spearman_rows(m_x, self.q, self.q_ranks))) - self.rho_y
        d = self._resampled_rho(m_x) - self.rho_y_b
        d = d[np.isfinite(d)]
        if not d.size:
            return Difference(observed, float("nan"), float("nan"), float("nan"))
        p = min(1.0, 2.0 * min(float((d <= 0).mean()), float((d >= 0).mean())))
        low, high = np.percentile(d, [2.5, 97.5])
        return Difference(observed, float(low), float(high), p)
