"""NIST's prepared references as arrays: the BLEU family's n-gram index plus information weights.

Doddington 2002, sec. 3 (and mteval-v13a's ``compute_ngram_info``): the information weight of a
reference n-gram is counted over **all references of the test set**::

    Info(w1..wn) = -log2( count(w1..wn) / count(w1..wn-1) )   (unigrams: / total ref tokens)

Everything else NIST needs per item is what :class:`~..index.BleuIndex` already holds per
(item, n-gram) *entry*: the maximum count over the item's references (NIST's clipping) and, for
ΔNIST, P(c) = max_j w_j · min(c, #g(r_j)) (Galley et al. 2015, sec. 3, the paper definition).
So the NIST index is a ``BleuIndex`` built from NIST's tokens plus, per order, one float64 per
entry: the information weight of the entry's n-gram. Entries of an item range are one run of
each table, so a slice of items is a slice of every array, and the arrays are stored in an
index file and memory-mapped like the BLEU family's.

Test-set counts come from the entries without a pass over the positions: an entry's
occurrences in its item's references are summed per distinct n-gram of the test set, whose
integer key chains like the entries' (order 1: token id; order n: ``id(prefix) · V + last``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..base import MetricInputError, RefItem
from ..index import (
    BleuIndex,
    bleu_arrays,
    bleu_from_arrays,
    index_segments,
    register_prepared_kind,
)
from ..ngrams import check_key_range, unique_inverse
from ..refset import RefSet
from ..tokenizers import encode_nist

Ngram = tuple[str, ...]
_LOG2 = math.log(2)


def entry_info(
    tables: BleuIndex, totals: Sequence[np.ndarray], tot_words: int, mteval_compat: bool
) -> list[np.ndarray]:
    """Per order, the information weight of every entry's n-gram (float64, one per entry).

    ``totals[n-1][e]`` is the number of occurrences of entry ``e`` of order n in its item's
    references. The values are those of mteval's formula computed as
    ``-log(count / prefix_count) / log(2)`` over float64 counts, the way the dict-based code
    did, so they are equal bit for bit. ``mteval_compat``: a bigram whose first token is ``0``
    is weighed against the total number of reference words (mteval's Perl quirk).
    """
    v = tables.vocab_size
    zero = tables.vocab.get("0", -1)
    out: list[np.ndarray] = []
    prev_ids = prev_table = prev_count = np.zeros(0, dtype=np.int64)
    for n, (table, total) in enumerate(zip(tables.orders, totals, strict=True), start=1):
        if n == 1:
            keys = table.keys % v  # the token: every item's "the" is one n-gram of the test set
        else:
            check_key_range(float(max(len(prev_table), 1)) * v)
            keys = prev_ids[table.keys // v] * v + table.keys % v
        distinct, ids = unique_inverse(keys)
        count = np.bincount(ids, weights=total, minlength=len(distinct))
        if n == 1:
            prefix = np.full(len(distinct), float(tot_words))
        else:
            prefix = prev_count[distinct // v]
            if mteval_compat and n == 2:
                # Perl reads the prefix string "0" as false and weighs against all words.
                prefix = np.where(prev_table[distinct // v] == zero, float(tot_words), prefix)
        info = -np.log(count / prefix) / _LOG2
        out.append(info[ids])
        prev_ids, prev_table, prev_count = ids, distinct, count
    return out


@dataclass
class ReferenceCounts:
    """The references indexed once for NIST and ΔNIST (any ``mteval_compat``): the n-gram
    tables and each entry's reference occurrences, from which information weights follow."""

    tables: BleuIndex
    totals: list[np.ndarray]
    tot_words: int
    nrefs: int | str
    signature: tuple[str, bool, int]  # tokenizer, lowercase, order
    _info: dict[bool, list[np.ndarray]] = field(default_factory=dict, repr=False)

    @property
    def ids(self) -> list[str]:
        """Item ids in order."""
        return self.tables.item_ids

    def info(self, mteval_compat: bool) -> list[np.ndarray]:
        """:func:`entry_info` for this compat setting (computed once)."""
        if mteval_compat not in self._info:
            self._info[mteval_compat] = entry_info(
                self.tables, self.totals, self.tot_words, mteval_compat
            )
        return self._info[mteval_compat]


def reference_counts(
    items: Sequence[RefItem], tokenize: str, lowercase: bool, order: int
) -> ReferenceCounts:
    """Tokenize every reference once and index its n-grams of orders 1..``order`` (numpy).

    Weights are not checked here (NIST ignores them); ΔNIST checks them when it makes its
    index. Raises :class:`MetricInputError` for an item without references.
    """
    refs = RefSet.of(items, check_weights=False)
    segs, vocab = encode_nist(refs.texts, tokenize, lowercase)
    tables, totals = index_segments(refs, segs, vocab, tokenize, lowercase, order)
    counts = set(np.diff(refs.ptr).tolist())
    nrefs: int | str = int(counts.pop()) if len(counts) == 1 else "var"
    return ReferenceCounts(tables, totals, len(segs.ids), nrefs, (tokenize, lowercase, order))


@dataclass
class NISTIndex:
    """Prepared references of NIST and ΔNIST: n-gram tables and information weights per entry.

    ``entry_info[n-1][e]`` is the (test-set) information weight of entry ``e`` of order n.
    Plain arrays: picklable, stored in index files, memory-mapped when loaded.
    """

    kind: ClassVar[str] = "nist"

    tables: BleuIndex
    entry_info: list[np.ndarray]
    nrefs: int | str
    mteval_compat: bool

    @property
    def ids(self) -> list[str]:
        """Item ids in order."""
        return self.tables.item_ids

    @property
    def ref_len(self) -> np.ndarray:
        """Per item, the mean reference length (mteval: total words / reference sets)."""
        t = self.tables
        if not t.n_items:
            return np.zeros(0)
        return np.add.reduceat(t.ref_lens, t.ref_ptr[:-1]) / np.diff(t.ref_ptr)

    @property
    def max_weight(self) -> np.ndarray:
        """Per item, the largest reference weight."""
        t = self.tables
        if not t.n_items:
            return np.zeros(0)
        return np.maximum.reduceat(t.ref_weights, t.ref_ptr[:-1])

    @property
    def info(self) -> InfoWeights:
        """Information weight by n-gram (token tuple), for inspection and tests."""
        return InfoWeights(self)

    def compatible(self, tokenize: str, lowercase: bool, order: int, mteval_compat: bool) -> bool:
        """Whether a NIST with these options can score against this index."""
        t = self.tables
        return (t.tokenize, t.lowercase, self.mteval_compat) == (
            tokenize,
            lowercase,
            mteval_compat,
        ) and order <= t.max_order

    def subset(self, start: int, stop: int) -> NISTIndex:
        """Items ``start:stop``; information weights stay those of the whole test set."""
        ranges = self.tables.entry_ranges(start, stop)
        info = [values[a:b] for values, (a, b) in zip(self.entry_info, ranges, strict=True)]
        return NISTIndex(self.tables.subset(start, stop), info, self.nrefs, self.mteval_compat)

    def to_arrays(self, out: dict[str, np.ndarray]) -> dict[str, Any]:
        """Store the arrays in ``out``; returns the index file header's entry."""
        meta = bleu_arrays(self.tables, out)
        for k, values in enumerate(self.entry_info):
            out[f"order{k}.info"] = values
        return {**meta, "nrefs": self.nrefs, "mteval_compat": self.mteval_compat}

    @classmethod
    def from_arrays(cls, meta: dict[str, Any], item_ids: list[str], arrays: Any) -> NISTIndex:
        """The index stored by :meth:`to_arrays` (arrays stay memory-mapped)."""
        tables = bleu_from_arrays(meta, item_ids, arrays)
        info = [arrays[f"order{k}.info"] for k in range(meta["orders"])]
        return cls(tables, info, meta["nrefs"], bool(meta["mteval_compat"]))


register_prepared_kind(NISTIndex.kind, NISTIndex.from_arrays)


class InfoWeights(Mapping[Ngram, float]):
    """Information weight of every reference n-gram of an index (decoded on first use: Python
    objects for every entry, so for small test sets and debugging only)."""

    def __init__(self, index: NISTIndex):
        self._index = index
        self._values: dict[Ngram, float] | None = None

    def _decoded(self) -> dict[Ngram, float]:
        if self._values is None:
            t = self._index.tables
            names = {i: tok for tok, i in t.vocab.items()}
            values: dict[Ngram, float] = {}
            grams: list[Ngram] = [()] * t.n_items  # order 0: an item's empty prefix
            for table, info in zip(t.orders, self._index.entry_info, strict=True):
                prefix, last = np.divmod(np.asarray(table.keys), t.vocab_size)
                pairs = zip(prefix.tolist(), last.tolist(), strict=True)
                grams = [grams[p] + (names[w],) for p, w in pairs]
                values.update(zip(grams, np.asarray(info).tolist(), strict=True))
            self._values = values
        return self._values

    def __getitem__(self, gram: Ngram) -> float:
        return self._decoded()[gram]

    def __iter__(self) -> Iterator[Ngram]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())


def check_delta_weights(tables: BleuIndex) -> None:
    """ΔNIST's conditions on the weights: each in [-1, 1], one > 0 per item (names the item)."""
    w, ptr = np.asarray(tables.ref_weights), np.asarray(tables.ref_ptr)
    bad = np.flatnonzero(~((w >= -1.0) & (w <= 1.0)))  # NaN fails too
    if len(bad):
        item = int(np.searchsorted(ptr, bad[0], side="right")) - 1
        raise MetricInputError(
            f"item {tables.item_ids[item]!r}: weight {float(w[bad[0]])} not in [-1, 1]"
        )
    if tables.n_items:
        positive = np.maximum.reduceat(w, ptr[:-1]) > 0
        if not positive.all():
            item = int(np.argmin(positive))
            raise MetricInputError(
                f"item {tables.item_ids[item]!r} needs one reference with weight > 0"
            )


def check_counts_match(counts: ReferenceCounts, tokenize: str, lowercase: bool, order: int) -> None:
    """Raise unless ``counts`` were made with this tokenizer, case and order."""
    if counts.signature != (tokenize, lowercase, order):
        raise MetricInputError("reference counts were made with another tokenizer or order")
