"""The reference index of the BLEU family, and the generic index file (any registered metric).

Galley et al. 2015, sec. 3: the only reference information ΔBLEU needs for an item is, per
n-gram g of the references, how much a hypothesis containing g c times can earn, plus the
reference lengths and the largest weight. :class:`BleuIndex` stores exactly that, for every
(item, n-gram) *entry* of the references:

* ``max_count`` M = max_j #g(r_ij) (plain BLEU clips the hypothesis count at M);
* ``max_weight`` W = max of w_ij over the references containing g (``author-2019`` earns
  W · min(c, M));
* for the ``paper`` definition, P(c) = max_j w_ij · min(c, #g(r_ij)); P(1) = W, and P(2..M) are
  kept in a flat side table for the few entries with M ≥ 2.

One index therefore serves ``dbleu`` (both definitions), ``bleu``, ``sbleu`` and ``bleu-sbp``
for one tokenizer, case setting and maximum order. The index *file* is generic: a pickle with
a header naming the metric and options it was prepared for, the item ids and the references
themselves (so that a different metric can re-prepare from it). Pickles execute code when
loaded: load only index files this product wrote.
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .base import MetricInputError, RefItem, WeightedRef
from .ngrams import Positions, build_tables, ref_counts
from .tokenizers import encode
from .version import __version__

log = logging.getLogger(__name__)

INDEX_FORMAT = "deltableu-studio-index"
INDEX_FORMAT_VERSION = 1


@dataclass
class OrderTable:
    """The entries of one n-gram order (see the module docstring for M, W and P)."""

    keys: np.ndarray
    max_count: np.ndarray
    max_weight: np.ndarray
    multi_start: np.ndarray
    multi: np.ndarray


@dataclass
class RefSet:
    """Flattened references: item ``i`` owns references ``ptr[i]:ptr[i+1]``."""

    item_ids: list[str]
    texts: list[str]
    weights: np.ndarray
    ptr: np.ndarray

    @classmethod
    def of(cls, items: Sequence[RefItem]) -> RefSet:
        """Flatten and validate ``items`` (≥ 1 reference each, weights finite in [-1, +1])."""
        texts: list[str] = []
        weights: list[float] = []
        ptr = [0]
        for item in items:
            if not item.refs:
                raise MetricInputError(f"item {item.id!r}: no references")
            for ref in item.refs:
                w = float(ref.weight)
                if not -1.0 <= w <= 1.0:  # also rejects NaN
                    raise MetricInputError(
                        f"item {item.id!r}: weight {ref.weight!r} not in [-1, 1]"
                    )
                texts.append(ref.text)
                weights.append(w)
            ptr.append(len(texts))
        return cls(
            [it.id for it in items], texts, np.array(weights, dtype=np.float64), np.array(ptr)
        )

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.item_ids)

    @property
    def item_of_ref(self) -> np.ndarray:
        """The item of every reference."""
        return np.repeat(np.arange(self.n_items, dtype=np.int64), np.diff(self.ptr))

    def items(self) -> list[RefItem]:
        """Back to :class:`RefItem` objects."""
        return [
            RefItem(
                iid,
                tuple(
                    WeightedRef(self.texts[j], float(self.weights[j]))
                    for j in range(self.ptr[i], self.ptr[i + 1])
                ),
            )
            for i, iid in enumerate(self.item_ids)
        ]


@dataclass
class BleuIndex:
    """Prepared references of the BLEU family for one tokenizer/case/maximum order."""

    tokenize: str
    lowercase: bool
    max_order: int
    item_ids: list[str]
    vocab: dict[str, int]
    vocab_size: int
    ref_ptr: np.ndarray
    ref_lens: np.ndarray
    ref_weights: np.ndarray
    orders: list[OrderTable] = field(default_factory=list)

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.item_ids)

    def compatible(self, tokenize: str, lowercase: bool, max_order: int) -> bool:
        """Whether a metric with these options can score against this index."""
        return (self.tokenize, self.lowercase) == (tokenize, lowercase) and (
            max_order <= self.max_order
        )


def _paper_multi(table_m: np.ndarray, rc: Any, weights: np.ndarray) -> tuple[np.ndarray, ...]:
    """P(c) for c = 2..M of every entry with M ≥ 2 (ΔBLEU paper definition, sec. 3)."""
    need = np.maximum(table_m - 1, 0)
    start = np.full(len(table_m), -1, dtype=np.int64)
    multi_entries = need > 0
    offsets = np.concatenate(([0], np.cumsum(need)))
    start[multi_entries] = offsets[:-1][multi_entries]
    rows = np.flatnonzero(need[rc.entry] > 0)
    rep = need[rc.entry[rows]]
    row_idx = np.repeat(rows, rep)
    first = np.cumsum(rep) - rep
    c = 2 + np.arange(len(row_idx), dtype=np.int64) - np.repeat(first, rep)
    values = weights[rc.ref[row_idx]] * np.minimum(c, rc.count[row_idx])
    multi = np.full(int(offsets[-1]), -np.inf)
    np.maximum.at(multi, start[rc.entry[row_idx]] + c - 2, values)
    return start, multi


def build_bleu_index(
    items: Sequence[RefItem], tokenize: str, lowercase: bool, max_order: int
) -> BleuIndex:
    """Tokenize every reference once and index its n-grams (orders 1..``max_order``)."""
    refs = RefSet.of(items)
    segs, vocab = encode(refs.texts, tokenize, lowercase)
    vocab_size = max(vocab.values(), default=0) + 1
    pos = Positions.of(segs, refs.item_of_ref)
    tables, entries = build_tables(pos, max_order, vocab_size, refs.n_items)
    ref_of_pos = np.repeat(np.arange(len(refs.texts), dtype=np.int64), segs.lens)
    index = BleuIndex(
        tokenize, lowercase, max_order, refs.item_ids, vocab, vocab_size,
        refs.ptr, segs.lens, refs.weights,
    )  # fmt: skip
    for table, entry in zip(tables, entries, strict=True):
        rc = ref_counts(entry, ref_of_pos, len(refs.texts))
        if len(rc.group_starts):
            m = np.maximum.reduceat(rc.count, rc.group_starts)
            w = np.maximum.reduceat(refs.weights[rc.ref], rc.group_starts)
        else:
            m, w = np.zeros(0, dtype=np.int64), np.zeros(0)
        start, multi = _paper_multi(m, rc, refs.weights)
        index.orders.append(OrderTable(table, m.astype(np.int32), w, start, multi))
    log.debug("indexed %d references of %d items", len(refs.texts), refs.n_items)
    return index


@dataclass
class IndexFile:
    """The content of an index file: what it was prepared for, the refs, the prepared object."""

    metric: str
    options: dict[str, Any]
    refs: RefSet
    prepared: Any
    library_version: str = __version__

    @property
    def item_ids(self) -> list[str]:
        """Item ids in order (to match JSONL hypotheses by id)."""
        return self.refs.item_ids


def save_index(path: str | Path, index: IndexFile) -> None:
    """Write ``index`` to ``path`` atomically (a temporary file renamed over it)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as fh:
        pickle.dump(
            {"format": INDEX_FORMAT, "version": INDEX_FORMAT_VERSION, "index": index},
            fh,
            protocol=pickle.HIGHEST_PROTOCOL,
        )
    tmp.replace(path)


def load_index(path: str | Path) -> IndexFile:
    """Read an index file written by :func:`save_index` (trusted files only: it is a pickle)."""
    try:
        with Path(path).open("rb") as fh:
            # Index files are written by this product only (see the module docstring).
            data = pickle.load(fh)  # noqa: S301
    except OSError as exc:
        raise MetricInputError(f"{path}: cannot read index: {exc.strerror}") from exc
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError) as exc:
        raise MetricInputError(f"{path}: not an index file ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
        raise MetricInputError(f"{path}: not an index file")
    if data.get("version") != INDEX_FORMAT_VERSION:
        raise MetricInputError(f"{path}: index format version {data.get('version')} unsupported")
    index = data["index"]
    if not isinstance(index, IndexFile):
        raise MetricInputError(f"{path}: not an index file")
    return index
