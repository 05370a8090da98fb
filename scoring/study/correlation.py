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


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n along the last axis, ties given their average rank (scipy's ``rankdata``)."""
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[-1]
    order = np.argsort(x, axis=-1, kind="stable")
    s = np.take_along_axis(x, order, axis=-1)
    pos = np.broadcast_to(np.arange(n), s.shape)
    starts_group = np.ones(s.shape, dtype=bool)
    starts_group[..., 1:] = s[..., 1:] != s[..., :-1]
    ends_group = np.ones(s.shape, dtype=bool)
    ends_group[..., :-1] = starts_group[..., 1:]
    first = np.maximum.accumulate(np.where(starts_group, pos, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends_group, pos, n), -1), -1), -1)
    ranks = np.empty_like(s)
    np.put_along_axis(ranks, order, (first + last) / 2.0 + 1.0, axis=-1)
    return ranks


def _pearson_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(axis=-1, keepdims=True)
    b = b - b.mean(axis=-1, keepdims=True)
    den = np.sqrt((a * a).sum(axis=-1) * (b * b).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (a * b).sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan)


def spearman_rows(m: np.ndarray, q: np.ndarray, q_ranks: np.ndarray | None = None) -> np.ndarray:
    """Spearman's ρ of each row of `m` with the same row of `q` (NaN when one is constant).

    `q_ranks` (the ranks of `q`) may be passed in when many metrics share one `q`."""
    q_ranks = average_ranks(q) if q_ranks is None else q_ranks
    return _pearson_rows(average_ranks(m), q_ranks)


def pair_order(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row, the boolean matrices x_j > x_i and x_j < x_i (shape (rows, n, n))."""
    greater = x[..., None, :] > x[..., :, None]
    return greater, np.swapaxes(greater, -1, -2).copy()


def kendall_rows(
    m: np.ndarray,
    q: np.ndarray,
    q_order: tuple[np.ndarray, np.ndarray] | None = None,
    chunk: int = 100,
) -> np.ndarray:
    """Kendall's τ-b of each row of `m` with the same row of `q` (NaN when one is constant).

    Counted over all ordered pairs with boolean matrices: concordant pairs are those where
    both go up, discordant where one goes up and the other down; each unordered pair is seen
    twice, which cancels in τ-b = (C − D) / √((n₀ − n₁)(n₀ − n₂)). `q_order`
    (`pair_order(q)`) may be passed in when many metrics share one `q`."""
    m, q = np.atleast_2d(m), np.atleast_2d(q)
    n = m.shape[-1]
    if n > KENDALL_PAIRWISE_MAX:
        return np.array([sps.kendalltau(a, b).statistic for a, b in zip(m, q, strict=True)])
    out = np.empty(m.shape[0])
    for start in range(0, m.shape[0], chunk):
        rows = slice(start, start + chunk)
        q_up, q_down = pair_order(q[rows]) if q_order is None else (
            q_order[0][rows], q_order[1][rows]
        )  # fmt: skip
        m_up = m[rows, None, :] > m[rows, :, None]
        concord = np.count_nonzero(m_up & q_up, axis=(1, 2)).astype(float)
        discord = np.count_nonzero(m_up & q_down, axis=(1, 2))
        untied_m = 2.0 * np.count_nonzero(m_up, axis=(1, 2))
        untied_q = 2.0 * np.count_nonzero(q_up, axis=(1, 2))
        den = np.sqrt(untied_m * untied_q)
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


def paired_bootstrap_difference(
    m_x: np.ndarray, m_y: np.ndarray, q: np.ndarray, seed: int = 12345
) -> Difference:
    """Is metric X's Spearman correlation with humans different from metric Y's?

    A paired bootstrap over assignments: each assignment's units are resampled with
    replacement once (the same draw for X, Y and the humans), giving one ρ_X − ρ_Y per
    assignment; the spread of those differences combines the luck of the assignment and of
    the sample of units. The interval is their 2.5th–97.5th percentiles, and the p-value
    twice the smaller share on either side of 0 (Koehn 2004 style, capped at 1).
    """
    rng = np.random.default_rng(seed)
    n_sets, n_obs = q.shape
    draw = rng.integers(0, n_obs, size=(n_sets, n_obs))
    q_b = np.take_along_axis(q, draw, axis=1)
    q_ranks = average_ranks(q_b)
    dx = spearman_rows(np.take_along_axis(m_x, draw, axis=1), q_b, q_ranks)
    dy = spearman_rows(np.take_along_axis(m_y, draw, axis=1), q_b, q_ranks)
    d = (dx - dy)[np.isfinite(dx - dy)]
    observed = float(np.nanmean(spearman_rows(m_x, q)) - np.nanmean(spearman_rows(m_y, q)))
    if not d.size:
        return Difference(observed, float("nan"), float("nan"), float("nan"))
    p = min(1.0, 2.0 * min(float((d <= 0).mean()), float((d >= 0).mean())))
    low, high = np.percentile(d, [2.5, 97.5])
    return Difference(observed, float(low), float(high), p)
