"""Vectorised n-gram bookkeeping over flattened token ids (numpy, no Python loop per n-gram).

An n-gram *entry* is a distinct (item, n-gram) pair. Entries of order n are numbered by a chain
of exact integer keys: order 1 is ``item * V + token``, order n is
``entry_of_prefix * V + last_token``. A sorted array of the keys of one order is a table in which
``np.searchsorted`` finds any (item, n-gram) in O(log size), exactly (no hashing, no collisions).
This is how references are indexed once and hypotheses looked up (Galley et al. 2015, sec. 3:
only n-grams of the hypothesis that occur in a reference of the same item contribute).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .tokenizers import Segments

_KEY_LIMIT = 2**62


def unique_inverse(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct ``keys`` and, for each key, its index among them (like ``np.unique``)."""
    if len(keys) == 0:
        return keys.copy(), np.zeros(0, dtype=np.int64)
    order = np.argsort(keys)
    sk = keys[order]
    new = np.empty(len(sk), dtype=bool)
    new[0] = True
    np.not_equal(sk[1:], sk[:-1], out=new[1:])
    inverse = np.empty(len(sk), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return sk[new], inverse


def check_key_range(bound: float) -> None:
    """Refuse to build keys up to ``bound``: they would overflow 64-bit integers."""
    if bound >= _KEY_LIMIT:
        raise ValueError("corpus too large for 64-bit n-gram keys")  # ~10^9 distinct n-grams


def _shifted(ids: np.ndarray, k: int) -> np.ndarray:
    """``ids[p + k]`` for every position p (-1 past the end)."""
    out = np.full(len(ids), -1, dtype=np.int64)
    if k < len(ids):
        out[: len(ids) - k] = ids[k:]
    return out


@dataclass
class Positions:
    """Per-position helpers of a :class:`Segments` object whose segments belong to items."""

    segs: Segments
    item_of_pos: np.ndarray
    remaining: np.ndarray

    @classmethod
    def of(cls, segs: Segments, item_of_seg: np.ndarray) -> Positions:
        """Build the helpers; ``item_of_seg[k]`` is the item of segment k."""
        return cls(segs, np.repeat(item_of_seg, segs.lens), segs.remaining())

    def keys(
        self, n: int, prev: np.ndarray | None, vocab_size: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Positions where an order-``n`` key exists, and the keys there (see module doc)."""
        ids = self.segs.ids
        if n == 1:
            valid = np.flatnonzero(ids >= 0)
            return valid, self.item_of_pos[valid] * vocab_size + ids[valid]
        if prev is None:
            raise ValueError("order > 1 needs the entries of the previous order")
        last = _shifted(ids, n - 1)
        valid = np.flatnonzero((self.remaining >= n) & (prev >= 0) & (last >= 0))
        return valid, prev[valid] * vocab_size + last[valid]


def iter_tables(
    pos: Positions, max_order: int, vocab_size: int, n_items: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The entry table of each order 1..max_order built from ``pos``, with each position's
    entry (-1 where none), one order at a time: a caller that needs one order at a time holds
    two orders' per-position arrays, not ``max_order`` of them."""
    prev: np.ndarray | None = None
    bound = float(n_items)
    for n in range(1, max_order + 1):
        check_key_range(bound * vocab_size)
        valid, keys = pos.keys(n, prev, vocab_size)
        table, inverse = unique_inverse(keys)
        del keys
        entry = np.full(len(pos.segs.ids), -1, dtype=np.int64)
        entry[valid] = inverse
        yield table, entry
        prev, bound = entry, float(max(len(table), 1))


def build_tables(
    pos: Positions, max_order: int, vocab_size: int, n_items: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Entry tables of orders 1..max_order built from ``pos``, and each position's entry (-1)."""
    tables: list[np.ndarray] = []
    entries: list[np.ndarray] = []
    for table, entry in iter_tables(pos, max_order, vocab_size, n_items):
        tables.append(table)
        entries.append(entry)
    return tables, entries


def lookup(pos: Positions, tables: list[np.ndarray], vocab_size: int) -> list[np.ndarray]:
    """Each position's entry in ``tables`` for every order (-1 where the n-gram is absent)."""
    entries: list[np.ndarray] = []
    prev: np.ndarray | None = None
    for n, table in enumerate(tables, start=1):
        valid, keys = pos.keys(n, prev, vocab_size)
        entry = np.full(len(pos.segs.ids), -1, dtype=np.int64)
        if len(table) and len(keys):
            idx = np.minimum(np.searchsorted(table, keys), len(table) - 1)
            found = table[idx] == keys
            entry[valid[found]] = idx[found]
        entries.append(entry)
        prev = entry
    return entries


@dataclass
class RefCounts:
    """For one order: each (entry, reference) pair with the n-gram's count in that reference.

    Rows are sorted by entry; ``group_starts`` are the first row of each entry present, whose
    entry number is ``group_entry``.
    """

    entry: np.ndarray
    ref: np.ndarray
    count: np.ndarray
    group_starts: np.ndarray
    group_entry: np.ndarray


def ref_counts(entry_of_pos: np.ndarray, ref_of_pos: np.ndarray, n_refs: int) -> RefCounts:
    """Count every entry's occurrences in every reference (one sort, no Python loop)."""
    mask = entry_of_pos >= 0
    check_key_range(float(entry_of_pos.max(initial=0) + 1) * max(n_refs, 1))
    keys = np.sort(entry_of_pos[mask] * n_refs + ref_of_pos[mask])
    if len(keys) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return RefCounts(empty, empty, empty, empty, empty)
    new = np.empty(len(keys), dtype=bool)
    new[0] = True
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    count = np.diff(np.append(starts, len(keys)))
    uniq = keys[starts]
    entry, ref = np.divmod(uniq, n_refs)
    gnew = np.empty(len(entry), dtype=bool)
    gnew[0] = True
    np.not_equal(entry[1:], entry[:-1], out=gnew[1:])
    group_starts = np.flatnonzero(gnew)
    return RefCounts(entry, ref, count, group_starts, entry[group_starts])
