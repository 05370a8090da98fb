"""Random assignments of items to observation units, and the units' summed statistics.

For a system pair with n usable items and unit size M, one assignment is a random permutation of
the items cut into ⌊n/M⌋ units of M consecutive items (the n mod M left over sit out that
assignment). All items of a unit belong to the same pair (paper, footnote 6). The assignments
depend only on the seed, the pair's position and M, so every metric sees the same ones.

A unit's metric score is the score of its items' summed statistics rows, and summing is a
product with a sparse 0/1 matrix of shape (assignments · units, items): one product gives every
unit of every assignment for every column (every metric and configuration) at once.

The product is the study's hottest loop, so columns are summed in float32 where that is exact:
most statistics are small counts, and integers whose absolute values add up to less than 2²⁴
have exact float32 sums in any order. The other columns are summed in float64. Column chunks
go to threads (the sparse product releases the GIL).
"""

from __future__ import annotations

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
    # Items in index order inside each unit: the same sums, and the CSR form scipy expects.
    cols = np.sort(perm.reshape(-1, unit_size), axis=1).ravel()
    indptr = np.arange(0, cols.size + 1, unit_size, dtype=np.int64)
    shape = (n_assignments * n_units, n_items)

    def csr(dtype: type) -> sp.csr_matrix:
        matrix = sp.csr_matrix((np.ones(cols.size, dtype=dtype), cols, indptr), shape=shape)
        matrix.has_sorted_indices = True
        return matrix

    return Assignments(csr(np.float64), n_assignments, n_units, unit_size, csr(np.float32))


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
