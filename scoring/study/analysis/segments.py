"""Segment-level correlation of a metric with human scores, as WMT reports it (METHODS.md,
"Meta-evaluation"), with 95% intervals from a bootstrap over items.

Scores come as grids of shape (systems, items), NaN where a system has no score for an item
(`grid_from_flat` builds them from flat arrays of ids). A response is a (system, item) cell
with both a metric and a human score; the rest are left out.

- "none" (no grouping): one correlation over all responses.
- "item" (WMT's item-grouped average): per item, the correlation across the systems'
  responses to it, averaged over items. An item where the metric's or the humans' scores are
  constant has no correlation (NaN): it is dropped from the average and counted
  (`n_constant`), as are items with fewer than two responses (`n_too_few`).

Pearson, Spearman and Kendall's τ-b (scipy's defaults; ties get average ranks) each way.

Intervals resample items, the unit the responses share: a draw picks items with replacement
and keeps all systems' responses to each pick (`units.item_draw_counts`; the same draws for
every statistic, deterministic from the seed); the interval is the 2.5th–97.5th percentiles.
A draw never re-ranks responses: it only weighs each response by its item's count, so the
Pearson and Spearman of a draw are weighted sums over the responses (Spearman's ranks of a
draw come from the weighted sizes of the tie groups), equal to scipy's on the resampled
responses (tests check it); an item-grouped draw is a weighted mean of the items' fixed
correlations. Kendall without grouping has no such shortcut (its pair counts change with the
weights): each draw is scipy's O(n log n) τ-b on the resampled responses, and costs the most.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy import stats as sps

from .correlation import average_ranks, percentiles
from .kendall_draws import WeightedKendall
from .units import item_draw_counts

STATISTICS = ("pearson", "spearman", "kendall")
GROUPINGS = ("none", "item")
# Bootstrap draws handled at once (memory: a few arrays of DRAW_CHUNK × responses floats).
DRAW_CHUNK = 50


@dataclass(frozen=True)
class SegmentCorrelation:
    """One segment-level correlation and its 95% bootstrap interval over items.

    `n_responses`: responses with both scores; `n_items`: items with at least one (the units
    the bootstrap draws); `n_groups`: items whose correlation entered the average (item
    grouping; `n_items` without grouping); `n_constant`, `n_too_few`: items dropped from the
    average because a side is constant or they have fewer than two responses (0 without
    grouping)."""

    statistic: str
    grouping: str
    value: float
    low: float
    high: float
    n_responses: int
    n_items: int
    n_groups: int
    n_constant: int
    n_too_few: int
    draws: int


def grid_from_flat(
    values: np.ndarray, items: Sequence, systems: Sequence
) -> tuple[np.ndarray, list, list]:
    """A (systems, items) grid of `values` given each value's item and system ids (NaN where
    a cell has none), with the sorted system and item ids of its rows and columns. A cell
    given twice is an error: average repeated ratings before."""
    values = np.asarray(values, dtype=np.float64)
    system_ids, s_index = np.unique(np.asarray(systems), return_inverse=True)
    item_ids, i_index = np.unique(np.asarray(items), return_inverse=True)
    if not values.shape == s_index.shape == i_index.shape:
        raise ValueError("values, items and systems must be flat arrays of one length")
    cell = s_index * item_ids.size + i_index
    if np.unique(cell).size != cell.size:
        raise ValueError("a (system, item) cell is given more than once")
    grid = np.full((system_ids.size, item_ids.size), np.nan)
    grid[s_index, i_index] = values
    return grid, system_ids.tolist(), item_ids.tolist()


def _check_grids(metric: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    metric, human = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    if metric.ndim != 2 or metric.shape != human.shape:
        raise ValueError(
            f"grids of one shape (systems, items) needed: {metric.shape}, {human.shape}"
        )
    return metric, human


def item_correlations(metric: np.ndarray, human: np.ndarray, statistic: str) -> np.ndarray:
    """Per item, the correlation across systems: arrays of shape (..., systems, items) give
    (..., items), NaN where an item has fewer than two responses or a constant side.

    Leading axes are batches (permutation draws of `significance`). Missing cells are NaN in
    either array; they sit outside every sum (Spearman ranks them last as +inf, which leaves
    the ranks of the others unchanged)."""
    x, y = np.swapaxes(metric, -1, -2), np.swapaxes(human, -1, -2)  # (..., items, systems)
    ok = np.isfinite(x) & np.isfinite(y)
    if statistic == "kendall":
        return _kendall_per_row(x, y, ok)
    if statistic == "spearman":
        x = average_ranks(np.where(ok, x, np.inf))
        y = average_ranks(np.where(ok, y, np.inf))
    elif statistic != "pearson":
        raise ValueError(f"unknown statistic {statistic!r}: one of {', '.join(STATISTICS)}")
    return _masked_pearson(x, y, ok) * np.where(_varies(x, y, ok), 1.0, np.nan)


def _masked_pearson(x: np.ndarray, y: np.ndarray, ok: np.ndarray) -> np.ndarray:
    n = ok.sum(axis=-1)
    x, y = np.where(ok, x, 0.0), np.where(ok, y, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        xc = np.where(ok, x - x.sum(axis=-1, keepdims=True) / n[..., None], 0.0)
        yc = np.where(ok, y - y.sum(axis=-1, keepdims=True) / n[..., None], 0.0)
        den = np.sqrt((xc * xc).sum(axis=-1) * (yc * yc).sum(axis=-1))
        return np.where(den > 0, (xc * yc).sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan)


def _varies(x: np.ndarray, y: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Whether both sides take two different values among a row's responses (exactly, so
    that rounding in a mean never makes a constant item look varied)."""

    def spread(v: np.ndarray) -> np.ndarray:
        high = np.where(ok, v, -np.inf).max(axis=-1)
        return high > np.where(ok, v, np.inf).min(axis=-1)

    return spread(x) & spread(y)


def _kendall_per_row(x: np.ndarray, y: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """τ-b per row from all pairs of its responses: (C − D) / √((n₀ − n₁)(n₀ − n₂))."""
    i, j = np.triu_indices(x.shape[-1], k=1)
    both = ok[..., i] & ok[..., j]
    dx = np.sign(x[..., i] - x[..., j])
    dy = np.sign(y[..., i] - y[..., j])
    with np.errstate(invalid="ignore"):
        s = np.where(both, dx * dy, 0.0).sum(axis=-1)
        untied_x = (both & (dx != 0)).sum(axis=-1)
        untied_y = (both & (dy != 0)).sum(axis=-1)
        den = np.sqrt(untied_x * untied_y.astype(np.float64))
        return np.where(den > 0, s / np.where(den > 0, den, 1.0), np.nan)


@dataclass(frozen=True)
class _Responses:
    """The responses in flat form: metric x, human y, and each one's item (0..n_items−1 over
    the items that have a response)."""

    x: np.ndarray
    y: np.ndarray
    item: np.ndarray
    n_items: int
    columns: np.ndarray  # the grid's columns of those items


def _responses(metric: np.ndarray, human: np.ndarray) -> _Responses:
    ok = np.isfinite(metric) & np.isfinite(human)
    columns = np.flatnonzero(ok.any(axis=0))
    local = np.full(metric.shape[1], -1)
    local[columns] = np.arange(columns.size)
    rows, cols = np.nonzero(ok)
    # In the metric's order: its tie groups are runs, which the bootstrap reads in sequence.
    order = np.argsort(metric[rows, cols], kind="stable")
    rows, cols = rows[order], cols[order]
    return _Responses(metric[rows, cols], human[rows, cols], local[cols], columns.size, columns)


def _pearson_from_sums(sums: np.ndarray) -> np.ndarray:
    """Pearson's r from weighted sums [n, Σx, Σy, Σx², Σy², Σxy] along the last axis."""
    n, sx, sy, sxx, syy, sxy = np.moveaxis(sums, -1, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        vx, vy = n * sxx - sx * sx, n * syy - sy * sy
        # Relative to the sums: a constant side leaves only rounding in n·Σx² − (Σx)².
        ok = (vx > 1e-12 * n * sxx) & (vy > 1e-12 * n * syy)
        return np.where(ok, (n * sxy - sx * sy) / np.sqrt(np.where(ok, vx * vy, 1.0)), np.nan)


def _row_cumsum(a: np.ndarray) -> np.ndarray:
    """`np.cumsum(a, axis=1)` of a C-ordered 2-D array of small integers (exact in float64),
    as one running sum over the flat array less each row's start: several times faster."""
    flat = np.cumsum(a.ravel()).reshape(a.shape)
    flat[1:] -= flat[:-1, -1:].copy()
    return flat


class _Draws:
    """Each statistic without grouping on the responses weighted by a chunk of draws' item
    counts (see the module docstring)."""

    def __init__(self, r: _Responses):
        self.r = r
        x, y = r.x - r.x.mean(), r.y - r.y.mean()  # centred: sums of squares lose less
        columns = np.column_stack([np.ones_like(x), x, y, x * x, y * y, x * y])
        self.item_sums = np.zeros((r.n_items, 6))
        np.add.at(self.item_sums, r.item, columns)
        self.groups = [self._tie_groups(v) for v in (r.x, r.y)]
        # Responses per (item, tie group): a draw's weighted group sizes are its item counts
        # times this sparse matrix, one product per chunk instead of a bincount over every
        # (draw, response) cell (several times faster at 100,000 responses; the same sums).
        self.members = [
            None
            if group is None
            else sparse.csr_matrix(
                (np.ones(group.size), (r.item, group)), shape=(r.n_items, n_groups)
            )
            for group, n_groups in self.groups
        ]
        self.sizes = np.bincount(r.item, minlength=r.n_items).astype(np.float64)
        self.order = np.argsort(r.item, kind="stable")
        self.starts = np.searchsorted(r.item[self.order], np.arange(r.n_items))
        self.weighted_kendall: WeightedKendall | None = None  # built on first use

    def _tie_groups(self, v: np.ndarray) -> tuple[np.ndarray | None, int]:
        """Each response's tie group (groups in increasing value) and the number of groups;
        None instead of the groups when they are the responses in order (no ties, and the
        responses sorted by `v`: the metric's case when its scores are continuous)."""
        _, group = np.unique(v, return_inverse=True)
        n_groups = int(group.max()) + 1
        if n_groups == v.size and np.array_equal(group, np.arange(v.size)):
            return None, n_groups
        return group, n_groups

    def pearson(self, counts: np.ndarray) -> np.ndarray:
        return _pearson_from_sums(counts @ self.item_sums)

    def spearman(self, counts: np.ndarray) -> np.ndarray:
        # Floats: einsum over mixed integer and float arrays is several times slower.
        counts = np.asarray(counts, dtype=np.float64)
        weights = np.take(counts, self.r.item, axis=1)  # (draws, responses), C-ordered
        ranks, squares = [], []
        for (group, _), members in zip(self.groups, self.members, strict=True):
            size = weights if members is None else np.asarray((members.T @ counts.T).T)
            rank = self._ranks(size)
            squares.append(np.einsum("dg,dg,dg->d", size, rank, rank))
            # Fancy indexing: np.take(axis=1) from a few groups' columns is many times slower.
            ranks.append(rank if group is None else rank[:, group])
        n = weights.sum(axis=1)
        sxy = np.einsum("dr,dr,dr->d", weights, ranks[0], ranks[1])
        mean = n * (n + 1) / 2  # Σ of weighted ranks, with ties or without
        sums = np.stack([n, mean, mean, squares[0], squares[1], sxy], axis=-1)
        return _pearson_from_sums(sums)

    @staticmethod
    def _ranks(size: np.ndarray) -> np.ndarray:
        """Each tie group's average rank in each draw (draws, groups), from the groups'
        weighted sizes in increasing value. Without ties in the metric, its groups are the
        responses themselves (they are in the metric's order), and the weights are the sizes."""
        rank = _row_cumsum(np.ascontiguousarray(size))
        rank -= 0.5 * size
        rank += 0.5
        return rank

    def kendall(self, counts: np.ndarray) -> np.ndarray:
        if self.weighted_kendall is None:
            r = self.r
            self.weighted_kendall = WeightedKendall(r.x, r.y, r.item, r.n_items)
        if self.weighted_kendall.usable:
            return self.weighted_kendall(counts)
        return self.expanded_kendall(counts)

    def expanded_kendall(self, counts: np.ndarray) -> np.ndarray:
        """scipy's τ of each draw's responses, repeated as often as their items were drawn."""
        out = np.empty(counts.shape[0])
        for d, row in enumerate(counts.astype(np.int64)):
            picked = np.repeat(self.starts, row)
            lengths = np.repeat(self.sizes.astype(np.int64), row)
            offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            chosen = self.order[np.repeat(picked, lengths) + offsets]
            with warnings.catch_warnings():  # a constant draw is NaN, counted as such
                warnings.simplefilter("ignore")
                out[d] = sps.kendalltau(self.r.x[chosen], self.r.y[chosen]).statistic
        return out


def segment_correlations(
    metric: np.ndarray,
    human: np.ndarray,
    *,
    statistics: Sequence[str] = STATISTICS,
    groupings: Sequence[str] = GROUPINGS,
    draws: int = 1000,
    seed: int = 0,
) -> list[SegmentCorrelation]:
    """Segment-level correlations of a metric with human scores, each with a 95% bootstrap
    interval over items (see the module docstring).

    `metric`, `human`: (systems, items) grids, NaN where a cell has no score; the metric's
    scores should grow with quality (negate a lower-is-better metric). Returns one result per
    grouping and statistic, in that order. Deterministic given `seed`."""
    metric, human = _check_grids(metric, human)
    for name in statistics:
        if name not in STATISTICS:
            raise ValueError(f"unknown statistic {name!r}: one of {', '.join(STATISTICS)}")
    for grouping in groupings:
        if grouping not in GROUPINGS:
            raise ValueError(f"unknown grouping {grouping!r}: one of {', '.join(GROUPINGS)}")
    r = _responses(metric, human)
    per_item = {
        s: item_correlations(metric[:, r.columns], human[:, r.columns], s) for s in statistics
    }
    too_few = np.isfinite(metric[:, r.columns]) & np.isfinite(human[:, r.columns])
    n_too_few = int((too_few.sum(axis=0) < 2).sum())
    boot = _bootstrap(r, per_item, groupings, draws, seed)
    out = []
    for grouping in groupings:
        for name in statistics:
            values = per_item[name]
            kept = np.isfinite(values)
            if grouping == "none":
                point, counts = _no_grouping(r, name), (r.n_items, 0, 0)
            else:
                point = float(values[kept].mean()) if kept.any() else float("nan")
                counts = (int(kept.sum()), r.n_items - int(kept.sum()) - n_too_few, n_too_few)
            low, high = percentiles(boot[grouping, name])
            out.append(
                SegmentCorrelation(
                    name, grouping, point, low, high, r.x.size, r.n_items, *counts, draws
                )
            )
    return out


def _no_grouping(r: _Responses, statistic: str) -> float:
    if r.x.size < 2 or np.ptp(r.x) == 0 or np.ptp(r.y) == 0:
        return float("nan")
    test = {"pearson": sps.pearsonr, "spearman": sps.spearmanr, "kendall": sps.kendalltau}
    return float(test[statistic](r.x, r.y).statistic)


def _bootstrap(
    r: _Responses,
    per_item: dict[str, np.ndarray],
    groupings: Sequence[str],
    draws: int,
    seed: int,
) -> dict[tuple[str, str], np.ndarray]:
    """Per (grouping, statistic) the statistic in every draw (NaN where undefined)."""
    out: dict[tuple[str, str], list[np.ndarray]] = {(g, s): [] for g in groupings for s in per_item}
    weighted = _Draws(r) if "none" in groupings and r.n_items else None
    for counts in item_draw_counts(r.n_items, draws, seed, DRAW_CHUNK):
        for name, values in per_item.items():
            if weighted is not None:
                out["none", name].append(getattr(weighted, name)(counts))
            if "item" in groupings:
                kept = np.isfinite(values)
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean = counts[:, kept] @ values[kept] / counts[:, kept].sum(axis=1)
                out["item", name].append(mean)
    return {key: np.concatenate(parts) if parts else np.zeros(0) for key, parts in out.items()}
