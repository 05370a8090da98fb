"""Random assignments of items to observation units, and the units' summed statistics.

For a system pair with n usable items and unit size M, one assignment is a random permutation of
the items cut into ⌊n/M⌋ units of M consecutive items (the n mod M left over sit out that
assignment). All items of a unit belong to the same pair (paper, footnote 6).

Pairs with the same usable items (the usual case: every system answered and was judged on every
item) draw their assignments from one pool of random permutations: in assignment a, the k-th
pair of the group uses permutation (a + k) mod P. Within one assignment every pair has its own
permutation, independent of the others' — each assignment is distributed exactly as if every
pair had drawn its own — but a system's unit sums and scores are computed once per permutation
of the pool instead of once per pair it belongs to (10 systems in 45 pairs: 9× less work).

`ItemBootstrap` resamples items for the intervals (see `correlation`): a replicate is one iid
sequence of item indices over all items, shared by every pair; a pair takes the first U·M
draws that are usable for it (an iid sample of its usable items, with replacement) and cuts
them into its U units of M. Pairs with the same usable items thus see the same resampled items
in the same units, exactly as the same items recur in every pair of the data.

A unit's metric score is the score of its items' summed statistics rows, and summing is a
product with a sparse 0/1 matrix of shape (sets · units, items): one product gives every
unit of every assignment for every column (every metric and configuration) at once.

The product is the study's hottest loop, so columns are summed in float32 where that is exact:
most statistics are small counts, and integers whose absolute values add up to less than 2²⁴
have exact float32 sums in any order. The other columns are summed in float64. Column chunks
go to threads (the sparse product releases the GIL).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

# Integers whose absolute values sum to less than this are summed exactly in float32.
FLOAT32_EXACT = 2**24
# Columns per product: small enough to spread over threads, large enough to stay efficient.
COLUMN_CHUNK = 48


@dataclass(frozen=True)
class Assignments:
    """The units of one pair: `matrix @ rows` sums the rows of each unit (shape A·U × n)."""

    matrix: sp.csr_matrix
    n_assignments: int
    n_units: int
    unit_size: int
    matrix32: sp.csr_matrix  # the same 0/1 matrix in float32, for the exact float32 columns


def assignments_for_pair(
    n_items: int, unit_size: int, n_assignments: int, seed: int, pair_index: int
) -> Assignments | None:
    """Random assignments of a pair's `n_items` (local indices) to units; None if n < M."""
    n_units = n_items // unit_size
    if n_units == 0:
        return None
    if unit_size == 1:
        n_assignments = 1  # every item is its own unit: all assignments are the same
    rng = np.random.default_rng([seed, unit_size, pair_index])
    keys = rng.random((n_assignments, n_items))
    perm = np.argsort(keys, axis=1)[:, : n_units * unit_size].astype(np.int32)
    return _units(perm, n_items, unit_size)


def _units(draws: np.ndarray, n_items: int, unit_size: int) -> Assignments:
    """Units of `unit_size` consecutive draws (local item indices) of each row of `draws`."""
    n_sets, width = draws.shape
    n_units = width // unit_size
    # Items in index order inside each unit: the same sums, and the CSR form scipy expects (a
    # bootstrap unit may hold an item twice: the product then adds its row twice).
    cols = np.sort(draws.reshape(-1, unit_size), axis=1).ravel()
    indptr = np.arange(0, cols.size + 1, unit_size, dtype=np.int64)
    shape = (n_sets * n_units, n_items)

    def csr(dtype: type) -> sp.csr_matrix:
        matrix = sp.csr_matrix((np.ones(cols.size, dtype=dtype), cols, indptr), shape=shape)
        matrix.has_sorted_indices = True
        return matrix

    return Assignments(csr(np.float64), n_sets, n_units, unit_size, csr(np.float32))


class ItemBootstrap:
    """Replicates of the items, shared by every pair (see the module docstring).

    Replicate b is an iid sequence of indices over all `n_items` items, drawn in chunks of
    `n_items` from generators seeded by (seed, chunk), so a pair's units depend only on the
    seed and its usable items. Deterministic; the same draws serve every metric.
    """

    def __init__(self, n_items: int, n_replicates: int, seed: int):
        self.n_items, self.n_replicates, self.seed = n_items, n_replicates, seed
        self._chunks: list[np.ndarray] = []

    def _chunk(self, k: int) -> np.ndarray:
        while len(self._chunks) <= k:
            rng = np.random.default_rng([self.seed, 0xB007, len(self._chunks)])
            shape = (self.n_replicates, self.n_items)
            self._chunks.append(rng.integers(0, self.n_items, size=shape, dtype=np.int32))
        return self._chunks[k]

    def draws(self, usable: np.ndarray, n_draws: int) -> np.ndarray:
        """The first `n_draws` draws of each replicate that fall on `usable` items (global,
        sorted indices): shape (replicates, n_draws), in local indices (positions in usable)."""
        mask = np.zeros(self.n_items, dtype=bool)
        mask[usable] = True
        taken: list[np.ndarray] = []
        counts = np.zeros(self.n_replicates, dtype=np.int64)
        k = 0
        while counts.min() < n_draws:
            chunk = self._chunk(k)
            hits = mask[chunk]
            rank = np.cumsum(hits, axis=1) + counts[:, None]
            keep = hits & (rank <= n_draws)
            taken.append(np.where(keep, chunk, -1))
            counts += keep.sum(axis=1)
            k += 1
        joined = np.concatenate(taken, axis=1)
        chosen = joined[joined >= 0].reshape(self.n_replicates, n_draws)
        local = np.full(self.n_items, -1, dtype=np.int32)
        local[usable] = np.arange(usable.size, dtype=np.int32)
        return local[chosen]

    def units(self, usable: np.ndarray, n_units: int, unit_size: int) -> Assignments:
        """The units of a pair whose usable items are `usable`: its `n_units` units of
        `unit_size` items in every replicate."""
        draws = self.draws(usable, n_units * unit_size)
        return _units(draws, usable.size, unit_size)


def item_draw_counts(
    n_items: int, n_draws: int, seed: int, chunk: int | None = None
) -> Iterator[np.ndarray]:
    """How often each item is drawn in each bootstrap draw, `chunk` draws at a time: arrays of
    shape (≤ chunk, n_items), float64, in draw order (all at once when `chunk` is None).

    Every draw is `n_items` iid picks of an item. The picks come from one generator seeded by
    (seed, 0x5157) and read in order, so the draws do not depend on `chunk` (the system-level
    table and the segment-level statistics of one seed see the same draws of their items).
    Chunks keep memory at chunk · n_items floats for data with many items."""
    rng = np.random.default_rng([seed, 0x5157])
    step = n_draws if chunk is None else max(1, chunk)
    for start in range(0, n_draws, step):
        rows = min(step, n_draws - start)
        picks = rng.integers(0, n_items, size=(rows, n_items))
        offsets = np.arange(rows)[:, None] * n_items
        flat = np.bincount((picks + offsets).ravel(), minlength=rows * n_items)
        yield flat.reshape(rows, n_items).astype(np.float64)


def float32_exact(rows: np.ndarray) -> np.ndarray:
    """Per column of `rows`: are all its values integers whose sum in float32 is exact?"""
    rows = np.asarray(rows, dtype=np.float64)
    integral = np.all(rows == np.round(rows), axis=0)
    return integral & (np.abs(rows).sum(axis=0) < FLOAT32_EXACT)


def column_sums(assignments: Assignments, rows: np.ndarray, workers: int = 1) -> np.ndarray:
    """Summed `rows` (n_items, k) per unit, one column at a time: shape (k, assignments, units).

    The column-major layout makes a configuration's columns contiguous rows to pick out."""
    rows = np.asarray(rows, dtype=np.float64)
    n_cols = rows.shape[1]
    out = np.empty((n_cols, assignments.matrix.shape[0]))
    exact = float32_exact(rows)
    jobs = [
        (cols[k : k + COLUMN_CHUNK], dtype)
        for cols, dtype in ((np.flatnonzero(exact), np.float32), (np.flatnonzero(~exact), None))
        for k in range(0, cols.size, COLUMN_CHUNK)
    ]

    def work(job: tuple[np.ndarray, type | None]) -> None:
        cols, dtype = job
        if dtype is np.float32:
            out[cols] = (assignments.matrix32 @ rows[:, cols].astype(np.float32)).T
        else:
            out[cols] = (assignments.matrix @ rows[:, cols]).T

    if workers > 1 and len(jobs) > 1:
        with ThreadPoolExecutor(min(workers, len(jobs))) as pool:
            list(pool.map(work, jobs))
    else:
        for job in jobs:
            work(job)
    return out.reshape(n_cols, assignments.n_assignments, assignments.n_units)


def dedupe_columns(blocks: dict[str, np.ndarray]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Stack column blocks into one matrix without repeated columns.

    Many configurations share columns (hypothesis lengths and n-gram totals do not depend on
    the references), and summing them once makes the product above cheaper. Returns the matrix
    and, per block name, the indices of its columns in it.
    """
    seen: dict[bytes, int] = {}
    columns: list[np.ndarray] = []
    where: dict[str, np.ndarray] = {}
    for name, block in blocks.items():
        index = []
        for col in np.asarray(block, dtype=np.float64).T:
            key = np.ascontiguousarray(col).tobytes()
            if key not in seen:
                seen[key] = len(columns)
                columns.append(col)
            index.append(seen[key])
        where[name] = np.array(index, dtype=np.int64)
    n_rows = next(iter(blocks.values())).shape[0] if blocks else 0
    matrix = np.column_stack(columns) if columns else np.zeros((n_rows, 0))
    return matrix, where
