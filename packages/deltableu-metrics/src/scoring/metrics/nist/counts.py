"""Test-set n-gram counts gathered range by range, for an index built a range of items at a time.

NIST's information weights (Doddington 2002, sec. 3; mteval-v13a ``compute_ngram_info``) count
every n-gram over all references of the test set, so a build that sees one range of items at a
time first counts every range (:meth:`TestSetCounts.add`), then weighs each range's entries
(:meth:`TestSetCounts.entry_info`). Only distinct n-grams of the test set are kept: a sorted key
table, an id and a count each (20 bytes), nothing per (item, n-gram) entry or per position.

An n-gram's id is stable from the range where it first occurs on: order 1 is the token id (ids
go by first occurrence, see :func:`..tokenizers.encode`), order n numbers the key
``id(prefix) · 2^31 + last token`` in order of first occurrence. The weights are those of
:func:`.tables.entry_info` bit for bit: the same float64 operations on the same integer counts.
"""

from __future__ import annotations

import math

import numpy as np

from ..index import BleuIndex
from ..ngrams import check_key_range
from ..tokenizers import Segments

_SHIFT = 2**31  # above any token id; 2^31 n-gram ids of one order keep keys below 2^62
_LOG2 = math.log(2)


def _empty() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


class TestSetCounts:
    """Occurrences of every distinct reference n-gram of orders 1..``order`` in the test set."""

    def __init__(self, order: int):
        self.order = order
        self.words = 0  # every reference token: the unigrams' denominator
        self.keys = [_empty() for _ in range(order)]  # sorted; order 1 unused (ids are tokens)
        # The id of each sorted key: int32, as _insert keeps ids below 2^31.
        self.ids = [np.zeros(0, dtype=np.int32) for _ in range(order)]
        self.counts = [_empty() for _ in range(order)]  # occurrences, by id

    def add(self, segs: Segments) -> None:
        """Count the n-grams of one range's references (``segs``, one segment per reference)."""
        self.words += len(segs.ids)
        remaining = segs.remaining()
        gid = segs.ids
        self.counts[0] = _add_counts(self.counts[0], gid[gid >= 0])
        for n in range(2, self.order + 1):
            last = np.full(len(gid), -1, dtype=np.int64)  # the token n-1 positions on
            if n - 1 < len(gid):
                last[: len(gid) - n + 1] = segs.ids[n - 1 :]
            valid = np.flatnonzero((remaining >= n) & (gid >= 0) & (last >= 0))
            keys = gid[valid] * _SHIFT + last[valid]
            distinct, inverse, count = np.unique(keys, return_inverse=True, return_counts=True)
            ids = self._insert(n - 1, distinct)
            self.counts[n - 1] = _add_counts(self.counts[n - 1], ids, count)
            gid = np.full(len(gid), -1, dtype=np.int64)
            gid[valid] = ids[inverse.reshape(-1)]

    def _insert(self, k: int, distinct: np.ndarray) -> np.ndarray:
        """Ids of the sorted ``distinct`` keys of order k+1, new keys numbered after the rest."""
        table = self.keys[k]
        at = np.searchsorted(table, distinct)
        known = at < len(table)
        known[known] = table[at[known]] == distinct[known]
        ids = np.empty(len(distinct), dtype=np.int64)
        ids[known] = self.ids[k][at[known]]
        new = np.flatnonzero(~known)
        ids[new] = len(self.ids[k]) + np.arange(len(new), dtype=np.int64)
        check_key_range(float(len(self.ids[k]) + len(new)) * _SHIFT)
        self.keys[k] = np.insert(table, at[new], distinct[new])
        self.ids[k] = np.insert(self.ids[k], at[new], ids[new].astype(np.int32))
        return ids

    def entry_info(self, tables: BleuIndex, mteval_compat: bool) -> list[np.ndarray]:
        """Per order, the information weight of each entry of ``tables`` (one range's index,
        built with the final vocabulary, entries numbered from 0): what
        :func:`.tables.entry_info` gives these entries in the index of the whole test set."""
        v = tables.vocab_size
        zero = tables.vocab.get("0", -1)
        out: list[np.ndarray] = []
        gid = prefix_gid = _empty()
        for n, table in enumerate(tables.orders, start=1):
            keys = np.asarray(table.keys)
            if n == 1:
                gid = keys % v
                prefix = np.full(len(gid), float(self.words))
            else:
                prefix_gid = gid[keys // v]
                wanted = prefix_gid * _SHIFT + keys % v
                gid = self.ids[n - 1][_find_sorted(self.keys[n - 1], wanted)].astype(np.int64)
                prefix = self.counts[n - 2][prefix_gid].astype(np.float64)
                if mteval_compat and n == 2:
                    # Perl reads the prefix string "0" as false and weighs against all words.
                    prefix = np.where(prefix_gid == zero, float(self.words), prefix)
            count = self.counts[n - 1][gid].astype(np.float64)
            out.append(-np.log(count / prefix) / _LOG2)
        return out


def _find_sorted(table: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``np.searchsorted(table, keys)``, the keys looked up in sorted order: in a table of
    millions, sorted lookups walk it once instead of jumping across it (several times faster)."""
    order = np.argsort(keys)
    at = np.empty(len(keys), dtype=np.int64)
    at[order] = np.searchsorted(table, keys[order])
    return at


def _add_counts(
    counts: np.ndarray, ids: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """``counts`` (by id) plus the occurrences of ``ids`` (each ``weights`` times), grown to
    cover new ids."""
    added = np.bincount(ids, weights=weights, minlength=len(counts)).astype(np.int64)
    added[: len(counts)] += counts
    return added
