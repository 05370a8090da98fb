"""Kendall's τ-b of bootstrap draws from weighted counts, without expanding each draw.

A draw repeats each item's responses as often as the item was drawn; scipy's `kendalltau` of
the expanded responses is one O(n log n) call per draw (2–3 ms at 10,000 responses, the
largest cost of a DSTC7-sized study's segment level). Its τ-b depends only on five integers —
pairs `tot`, pairs tied in x, in y, in both, and discordant pairs — and each is a sum over the
distinct (x, y) values weighted by how often the draw repeats them. When one side has few
distinct values (human scores: a mean of a few 1–5 ratings), discordant pairs are counted
level by level with cumulative sums over the other side, for a chunk of draws at once. The
integers are the ones scipy counts, and the last step is scipy's expression, so the values
are bit-identical (`tests/scoring/test_study_kendall_draws.py` checks it against scipy).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

# Past this many distinct values on both sides, one pass per level costs more than scipy's
# merge sort per draw: the caller expands the draws instead.
MAX_LEVELS = 64


class WeightedKendall:
    """τ-b of responses (x, y) whose item is `item`, for draws given as item counts."""

    def __init__(self, x: np.ndarray, y: np.ndarray, item: np.ndarray, n_items: int):
        _, gx = np.unique(x, return_inverse=True)
        _, gy = np.unique(y, return_inverse=True)
        # Discordance is symmetric in x and y: the side with fewer values gives the levels.
        self.swapped = bool(gy.max(initial=0) > gx.max(initial=0))
        if self.swapped:
            gx, gy = gy, gx
        self.n_levels = int(gy.max(initial=0)) + 1
        # Distinct (x, y) cells sorted by x, then y; each response's cell.
        cell_key = gx.astype(np.int64) * self.n_levels + gy
        keys, cell = np.unique(cell_key, return_inverse=True)
        self.cell_x, self.cell_y = keys // self.n_levels, keys % self.n_levels
        # Cells × items, responses of the item in the cell: a draw's cell weights are this
        # times its item counts (draws along columns: cumulative sums run down the rows).
        self.members = sparse.csr_matrix(
            (np.ones(cell.size), (cell, item)), shape=(keys.size, n_items)
        )
        self.x_starts = np.flatnonzero(np.diff(self.cell_x, prepend=-1))
        # Cells by level, in x order within a level; `bounds[k]` is where level k starts.
        self.by_level = np.argsort(self.cell_y, kind="stable")
        self.bounds = np.searchsorted(self.cell_y[self.by_level], np.arange(self.n_levels + 1))
        self.smaller_x = self._smaller_x()

    def _smaller_x(self) -> sparse.csr_matrix:
        """M with (M @ R)[j] the running sum R (cell weights in `by_level` order, led by a 0)
        at each higher level's start plus its cells of an x smaller than cell j's, summed over
        the levels above j's: with the levels' starts taken off (`__call__`), the weight of
        cells with a smaller x and a higher level, the cells discordant with j."""
        rows, cols = [], []
        x_sorted = self.cell_x[self.by_level]
        for level in range(1, self.n_levels):
            lower = np.flatnonzero(self.cell_y < level)
            start, end = self.bounds[level], self.bounds[level + 1]
            rows.append(lower)
            cols.append(start + np.searchsorted(x_sorted[start:end], self.cell_x[lower], "left"))
        n = self.cell_x.size
        if not rows:
            return sparse.csr_matrix((n, n + 1))
        at = (np.concatenate(rows), np.concatenate(cols))
        return sparse.csr_matrix((np.ones(at[0].size), at), shape=(n, n + 1))

    @property
    def usable(self) -> bool:
        return self.n_levels <= MAX_LEVELS

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        """τ-b per draw of `counts` (draws, n_items); NaN where a side is constant."""
        w = np.asarray(self.members @ np.asarray(counts, dtype=np.float64).T)  # (cells, draws)
        # Sums of integers below 2⁵³: exact in float64, so every count below is an integer.
        running = np.zeros((w.shape[0] + 1, w.shape[1]))
        np.cumsum(w[self.by_level], axis=0, out=running[1:])
        starts = running[self.bounds[1:-1]]
        # The levels' starts, once per cell below each level: Σ_k (weight below level k)².
        dis = (np.asarray(self.smaller_x @ running) * w).sum(axis=0) - (starts * starts).sum(0)
        tot = _pairs(w.sum(axis=0))
        ntie = _pairs(w).sum(axis=0)
        xtie = _pairs(np.add.reduceat(w, self.x_starts, axis=0)).sum(axis=0)
        ytie = _pairs(np.diff(running[self.bounds], axis=0)).sum(axis=0)
        if self.swapped:  # scipy divides by x's term first: the same order, the same bits
            xtie, ytie = ytie, xtie
        return _tau_b(tot, xtie, ytie, ntie, dis)


def _pairs(w: np.ndarray) -> np.ndarray:
    """Unordered pairs among `w` items, as exact integers (int64)."""
    n = np.rint(w).astype(np.int64)
    return n * (n - 1) // 2


def _tau_b(tot, xtie, ytie, ntie, dis) -> np.ndarray:
    """scipy's τ-b from its counts (scipy 1.17, `kendalltau`, variant 'b'), per draw."""
    dis = np.rint(dis).astype(np.int64)
    con_minus_dis = tot - xtie - ytie + ntie - 2 * dis
    undefined = (xtie == tot) | (ytie == tot)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    tau = np.minimum(1.0, np.maximum(-1.0, tau))
    return np.where(undefined, np.nan, tau)
