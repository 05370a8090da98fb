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
for one tokenizer, case setting and maximum order. The index *file* is generic, pickle-free and
memory-mapped when loaded (see :mod:`.arrayfile`): a JSON header naming the metric
and options it was prepared for, the item ids, the references themselves (so that a different
metric can re-prepare from them) and, for the BLEU family, the prepared index's arrays.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .arrayfile import PackedStrings, pack_strings, read_arrays, unpack_strings, write_arrays
from .base import MetricInputError, RefItem
from .ngrams import Positions, iter_tables, ref_counts
from .refset import RefSet
from .tokenizers import Segments, encode
from .version import __version__

log = logging.getLogger(__name__)

INDEX_FORMAT = "deltableu-studio-index"
INDEX_FORMAT_VERSION = 5  # 1 a pickle, 2 an npz archive, 3 NIST as dicts, 4 no token ids


@dataclass
class OrderTable:
    """The entries of one n-gram order (see the module docstring for M, W and P)."""

    keys: np.ndarray
    max_count: np.ndarray
    max_weight: np.ndarray
    multi_start: np.ndarray
    multi: np.ndarray

    def paper(self, entry: np.ndarray, count: np.ndarray) -> np.ndarray:
        """P(c) of each ``entry`` for hypothesis counts ``count`` (c ≥ 1): P(1) = W, P(c ≥ 2)
        from the side table, P(c > M) = P(M) (the paper's clipping, sec. 3)."""
        cc = np.minimum(count, self.max_count[entry])
        side = np.where(cc >= 2, self.multi_start[entry] + cc - 2, 0)
        multi = self.multi[side] if len(self.multi) else np.zeros(len(entry))
        return np.where(cc >= 2, multi, self.max_weight[entry])


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
    # Every reference's token ids, one after another (``ref_lens`` long each), or None in a
    # file written before they were kept. The tables keep no per-reference counts; a weight
    # profile needs them, and with these ids it finds them without tokenizing again.
    ref_tokens: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.item_ids)

    def subset(self, start: int, stop: int) -> BleuIndex:
        """The index of items ``start:stop`` alone (item numbers shifted to start at 0).

        Keys of every order are sorted by item (order 1: ``item * V + token``; order n: the
        entry of its prefix, itself sorted by item), so an item range is one contiguous run
        of each table: only that run is read (a few pages of a memory-mapped file) and its keys
        are shifted. ``multi_start`` keeps pointing into the whole side table ``multi``."""
        v = self.vocab_size
        r0, r1 = int(self.ref_ptr[start]), int(self.ref_ptr[stop])
        part = BleuIndex(
            self.tokenize,
            self.lowercase,
            self.max_order,
            self.item_ids[start:stop],
            self.vocab,
            v,
            np.asarray(self.ref_ptr[start : stop + 1]) - r0,
            self.ref_lens[r0:r1],
            self.ref_weights[r0:r1],
        )
        if self.ref_tokens is not None:
            t0 = int(np.sum(self.ref_lens[:r0]))
            part.ref_tokens = self.ref_tokens[t0 : t0 + int(np.sum(part.ref_lens))]
        lo = start  # the first entry of the previous order (order 0: items)
        for table, (a, b) in zip(self.orders, self.entry_ranges(start, stop), strict=True):
            part.orders.append(
                OrderTable(
                    table.keys[a:b] - lo * v,
                    table.max_count[a:b],
                    table.max_weight[a:b],
                    table.multi_start[a:b],
                    table.multi,
                )
            )
            lo = a
        return part

    def entry_ranges(self, start: int, stop: int) -> list[tuple[int, int]]:
        """Per order, the run ``a:b`` of entries that belong to items ``start:stop``."""
        if not 0 <= start <= stop <= self.n_items:
            raise MetricInputError(f"items {start}:{stop} outside 0:{self.n_items}")
        lo, hi = start, stop  # the range of the previous order's entries (order 0: items)
        out = []
        for table in self.orders:
            a, b = (
                int(x)
                for x in np.searchsorted(table.keys, [lo * self.vocab_size, hi * self.vocab_size])
            )
            out.append((a, b))
            lo, hi = a, b
        return out

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
    return index_segments(refs, segs, vocab, tokenize, lowercase, max_order)[0]


def reference_token_ids(segs: Segments) -> np.ndarray:
    """The references' token ids as an index keeps them (int32: vocabularies stay far below
    2**31 types; every reference token is in its index's vocabulary)."""
    return np.asarray(segs.ids, dtype=np.int32)


def index_segments(
    refs: RefSet,
    segs: Segments,
    vocab: dict[str, int],
    tokenize: str,
    lowercase: bool,
    max_order: int,
) -> tuple[BleuIndex, list[np.ndarray]]:
    """The index of references already encoded (``segs``, one segment per reference), and per
    order each entry's number of occurrences in all the item's references (NIST counts them)."""
    vocab_size = max(vocab.values(), default=0) + 1
    pos = Positions.of(segs, refs.item_of_ref)
    ref_of_pos = np.repeat(np.arange(len(refs.texts), dtype=np.int64), segs.lens)
    index = BleuIndex(
        tokenize,
        lowercase,
        max_order,
        refs.item_ids,
        vocab,
        vocab_size,
        refs.ptr,
        segs.lens,
        refs.weights,
        ref_tokens=reference_token_ids(segs),
    )
    totals = []
    for table, entry in iter_tables(pos, max_order, vocab_size, refs.n_items):
        rc = ref_counts(entry, ref_of_pos, len(refs.texts))
        if len(rc.group_starts):
            m = np.maximum.reduceat(rc.count, rc.group_starts)
            w = np.maximum.reduceat(refs.weights[rc.ref], rc.group_starts)
            totals.append(np.add.reduceat(rc.count, rc.group_starts))
        else:
            m, w = np.zeros(0, dtype=np.int64), np.zeros(0)
            totals.append(np.zeros(0, dtype=np.int64))
        start, multi = _paper_multi(m, rc, refs.weights)
        index.orders.append(OrderTable(table, m.astype(np.int32), w, start, multi))
        del rc  # before the next order's tables: one order's rows at a time
    log.debug("indexed %d references of %d items", len(refs.texts), refs.n_items)
    return index, totals


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


# Prepared forms other than the BLEU family's that an index file stores: kind → the function
# that rebuilds one from the file's header entry, item ids and (memory-mapped) arrays. A
# prepared object to store has ``kind`` and ``to_arrays(out) -> header entry``.
_KINDS: dict[str, Callable[[dict[str, Any], list[str], Any], Any]] = {}


def register_prepared_kind(
    kind: str, loader: Callable[[dict[str, Any], list[str], Any], Any]
) -> None:
    """Let :func:`load_index` rebuild prepared references of ``kind`` with ``loader``."""
    _KINDS[kind] = loader


def bleu_arrays(index: BleuIndex, out: dict[str, np.ndarray]) -> dict[str, Any]:
    """Store ``index``'s arrays in ``out``; returns what the header must hold to rebuild it."""
    tokens = sorted(index.vocab, key=index.vocab.__getitem__)
    pack_strings("vocab", tokens, out)
    out["vocab.ids"] = np.array([index.vocab[t] for t in tokens], dtype=np.int64)
    out["ref_ptr"], out["ref_lens"], out["ref_weights"] = (
        index.ref_ptr,
        index.ref_lens,
        index.ref_weights,
    )
    for k, table in enumerate(index.orders):
        for name in ("keys", "max_count", "max_weight", "multi_start", "multi"):
            out[f"order{k}.{name}"] = getattr(table, name)
    if index.ref_tokens is not None:
        out["ref_tokens"] = index.ref_tokens
    return {
        "tokenize": index.tokenize,
        "lowercase": index.lowercase,
        "max_order": index.max_order,
        "vocab_size": index.vocab_size,
        "orders": len(index.orders),
        "ref_tokens": index.ref_tokens is not None,
    }


def bleu_from_arrays(meta: dict[str, Any], item_ids: list[str], arrays: Any) -> BleuIndex:
    """The :class:`BleuIndex` stored by :func:`bleu_arrays` (arrays stay memory-mapped)."""
    tokens = unpack_strings("vocab", arrays)
    vocab = dict(zip(tokens, arrays["vocab.ids"].tolist(), strict=True))
    index = BleuIndex(
        meta["tokenize"],
        meta["lowercase"],
        meta["max_order"],
        item_ids,
        vocab,
        meta["vocab_size"],
        arrays["ref_ptr"],
        arrays["ref_lens"],
        arrays["ref_weights"],
    )
    for k in range(meta["orders"]):
        names = ("keys", "max_count", "max_weight", "multi_start", "multi")
        index.orders.append(OrderTable(*(arrays[f"order{k}.{name}"] for name in names)))
    if meta.get("ref_tokens"):  # absent from files written before they were kept
        index.ref_tokens = arrays["ref_tokens"]
    return index


def save_index(path: str | Path, index: IndexFile) -> None:
    """Write ``index`` to ``path`` atomically (a temporary file renamed over it).

    The file is an :mod:`.arrayfile`: a JSON header (format, version, metric, options, library
    version, item ids, what was prepared) and plain numeric arrays that :func:`load_index`
    memory-maps, so reading a file from shared storage never runs code and the processes of a
    machine share one copy. Prepared references are stored whole: the BLEU family's index, NIST's
    tables, the word-aligning metrics' token ids (a metric whose prepared form has no stored
    kind prepares again from the stored references on load).
    """
    arrays: dict[str, np.ndarray] = {}
    pack_strings("refs.texts", index.refs.texts, arrays)
    arrays["refs.weights"], arrays["refs.ptr"] = index.refs.weights, index.refs.ptr
    prepared = None
    if isinstance(index.prepared, BleuIndex):
        prepared = {"kind": "bleu", **bleu_arrays(index.prepared, arrays)}
    elif getattr(index.prepared, "kind", None) in _KINDS:
        prepared = {"kind": index.prepared.kind, **index.prepared.to_arrays(arrays)}
    header = index_header(index.metric, index.options, index.refs.item_ids, prepared)
    write_arrays(path, arrays, {**header, "library_version": index.library_version})


def index_header(metric: str, options: Any, item_ids: list[str], prepared: Any) -> dict[str, Any]:
    """The JSON header of an index file (see :func:`save_index`)."""
    return {
        "format": INDEX_FORMAT,
        "version": INDEX_FORMAT_VERSION,
        "metric": metric,
        "options": options,
        "library_version": __version__,
        "item_ids": item_ids,
        "prepared": prepared,
    }


def _header(meta: Any, path: str | Path) -> dict[str, Any]:
    if not isinstance(meta, dict) or meta.get("format") != INDEX_FORMAT:
        raise MetricInputError(f"{path}: not an index file")
    if meta.get("version") != INDEX_FORMAT_VERSION:
        raise MetricInputError(f"{path}: index format version {meta.get('version')} unsupported")
    return meta


def _stored_prepared(header: dict[str, Any], item_ids: list[str], arrays: Any) -> Any:
    stored = header["prepared"]
    if not stored:
        return None
    if stored.get("kind") == "bleu":
        return bleu_from_arrays(stored, item_ids, arrays)
    if stored.get("kind") not in _KINDS:
        from .registry import entries  # imports every metric module, which register kinds

        entries()
    loader = _KINDS.get(stored.get("kind"))
    return loader(stored, item_ids, arrays) if loader else None


def load_index(path: str | Path, verify: bool = True) -> IndexFile:
    """Read an index file written by :func:`save_index`; nothing in it is ever executed.

    The arrays are read-only memory maps of ``path``, which must therefore stay in place while
    the index is used. ``verify`` checks the file's size and checksum first: a truncated or
    garbled file raises :class:`MetricInputError` instead of giving wrong scores.
    """
    try:
        arrays, meta = read_arrays(path, verify=verify)
        header = _header(meta, path)
        refs = RefSet(
            header["item_ids"],
            PackedStrings(arrays["refs.texts.blob"], arrays["refs.texts.ends"]),
            arrays["refs.weights"],
            arrays["refs.ptr"],
        )
        prepared = _stored_prepared(header, refs.item_ids, arrays)
    except OSError as exc:
        raise MetricInputError(f"{path}: cannot read index: {exc.strerror or exc}") from exc
    except (ValueError, KeyError, TypeError) as exc:
        # ArrayFileError is a ValueError; the format holds no object arrays, so no pickle.
        raise MetricInputError(f"{path}: not an index file ({exc})") from exc
    if prepared is None:
        from .registry import (
            get_metric,
        )  # here: the registry imports the metric modules, which import this one

        prepared = get_metric(header["metric"], **header["options"]).prepare(refs.items())
    return IndexFile(header["metric"], header["options"], refs, prepared, header["library_version"])
