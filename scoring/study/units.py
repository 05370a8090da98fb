"""Random assignments of items to observation units, and the units' summed statistics.

For a system pair with n usable items and unit size M, one assignment is a random permutation of
the items cut into ⌊n/M⌋ units of M consecutive items (the n mod M left over sit out that
assignment). All items of a unit belong to the same pair (paper, footnote 6). The assignments
depend only on the seed, the pair's position and M, so every metric sees the same ones.

A unit's metric score is the score of its items' summed statistics rows, and summing is a
product with a sparse 0/1 matrix of shape (assignments · units, items): one product gives every
unit of every assignment for every column (every metric and configuration) at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Assignments:
    """The units of one pair: `matrix @ rows` sums the rows of each unit (shape A·U × n)."""

    matrix: sp.csr_matrix
    n_assignments: int
    n_units: int
    unit_size: int


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
    cols = perm.ravel()
    indptr = np.arange(0, cols.size + 1, unit_size, dtype=np.int64)
    matrix = sp.csr_matrix(
        (np.ones(cols.size), cols, indptr), shape=(n_assignments * n_units, n_items)
    )
    return Assignments(matrix, n_assignments, n_units, unit_size)


def unit_sums(assignments: Assignments, rows: np.ndarray) -> np.ndarray:
    """Summed `rows` (n_items, k) per unit: shape (assignments, units, k)."""
    summed = assignments.matrix @ rows
    return np.asarray(summed).reshape(assignments.n_assignments, assignments.n_units, -1)


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
