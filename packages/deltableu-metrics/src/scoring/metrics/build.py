"""Index files built a range of items at a time, so that building one does not need memory in
proportion to the test set (issue 15).

The file is the one :func:`.index.save_index` writes for :func:`.api.build_index`'s result, byte
for byte; only the way there differs. Two passes over ranges of ``range_items`` items:

1. every range's references are tokenized, growing one vocabulary (ids go by first occurrence,
   so they are the whole build's), and their token ids spooled to a temporary folder; NIST also
   counts the test set's n-grams (:class:`.nist.counts.TestSetCounts`, the one global table);
2. every range is indexed by the machinery of a whole build (:func:`.index.index_segments`) with
   the final vocabulary, its entry numbers shifted to the whole set's (the inverse of
   :meth:`.index.BleuIndex.subset`: tables are sorted by item, so a range is one run of each),
   and every array's piece appended to an :class:`.arrayfile.ArrayWriter`.

Metrics whose index is not the BLEU family's or NIST's are built whole (their prepared
references are not stored in the file anyway: :func:`.index.save_index`).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .api import as_metric, build_index
from .arrayfile import ArrayWriter, pack_strings
from .base import Metric, RefItem
from .bleu import BleuFamily
from .index import BleuIndex, index_header, index_segments, reference_token_ids, save_index
from .ngrams import check_key_range
from .nist import NIST, DeltaNIST
from .nist.counts import TestSetCounts
from .nist.tables import check_delta_weights
from .refset import RefSet, item_ids
from .tokenizers import Segments, encode, encode_nist

log = logging.getLogger(__name__)

# Items indexed at once. 10,000 items of 16 references of ~15 tokens are 2.4 million token
# positions, ~100 bytes of build scratch each (NIST, 5 orders): a few hundred MB a range.
RANGE_ITEMS = 10_000

_ORDER_ARRAYS = (
    ("keys", np.int64),
    ("max_count", np.int32),
    ("max_weight", np.float64),
    ("multi_start", np.int64),
    ("multi", np.float64),
)


@dataclass
class _Plan:
    """How a metric's index is made: its tokenizer, orders, and what NIST adds."""

    encode: Callable[..., tuple[Segments, dict[str, int]]]
    tokenize: str
    lowercase: bool
    max_order: int
    nist: NIST | None  # NIST and ΔNIST: information weights, nrefs, compat setting


def _plan(metric: Metric) -> _Plan | None:
    o = metric.opts
    if isinstance(metric, NIST) and type(metric).prepare is NIST.prepare:
        return _Plan(encode_nist, o["tokenize"], o["lowercase"], metric.order, metric)
    if isinstance(metric, BleuFamily) and type(metric).prepare is BleuFamily.prepare:
        return _Plan(encode, o["tokenize"], o["lowercase"], metric.max_order, None)
    return None


def _specs(plan: _Plan) -> list[tuple[str, Any]]:
    """Array names and dtypes in the order :func:`.index.save_index` stores them."""
    specs: list[tuple[str, Any]] = [
        ("refs.texts.blob", np.uint8), ("refs.texts.ends", np.int64),
        ("refs.weights", np.float64), ("refs.ptr", np.int64),
        ("vocab.blob", np.uint8), ("vocab.ends", np.int64), ("vocab.ids", np.int64),
        ("ref_ptr", np.int64), ("ref_lens", np.int64), ("ref_weights", np.float64),
    ]  # fmt: skip
    for k in range(plan.max_order):
        specs += [(f"order{k}.{name}", dtype) for name, dtype in _ORDER_ARRAYS]
    specs.append(("ref_tokens", np.int32))
    if plan.nist is not None:
        specs += [(f"order{k}.info", np.float64) for k in range(plan.max_order)]
    return specs


def write_index(
    path: str | Path, metric: str | Metric, items: Sequence[RefItem], range_items: int = RANGE_ITEMS
) -> None:
    """Write the index file of ``save_index(path, build_index(metric, items))``, building it
    ``range_items`` items at a time: peak memory grows with the range, not with ``items``
    (besides the items themselves, their ids, the vocabulary and NIST's test-set counts)."""
    m = as_metric(metric)
    plan = _plan(m)
    if plan is None:
        save_index(path, build_index(m, items))
        return
    if range_items < 1:
        raise ValueError(f"range_items must be ≥ 1, not {range_items}")
    ranges = [(a, min(a + range_items, len(items))) for a in range(0, len(items), range_items)]
    path = Path(path)
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=f".{path.name}.") as spool:
        builder = _RangedBuild(plan, Path(spool))
        for k, (a, b) in enumerate(ranges):
            builder.first(k, items[a:b])
        with ArrayWriter(path, _specs(plan)) as out:
            builder.start(out)
            for k, (a, b) in enumerate(ranges):
                builder.second(k, items[a:b], out)
            out.finish(builder.header(m, items))
    log.info("indexed %d items in %d ranges", len(items), len(ranges))


class _RangedBuild:
    """The state carried from range to range (see the module docstring)."""

    def __init__(self, plan: _Plan, spool: Path):
        self.plan, self.spool = plan, spool
        self.vocab: dict[str, int] = {}
        self.counts = TestSetCounts(plan.max_order) if plan.nist is not None else None
        self.refs_per_item: set[int] = set()
        self.items = self.refs = self.text_bytes = 0
        self.entries = [0] * plan.max_order  # entries of each order in earlier ranges
        self.multi = [0] * plan.max_order  # the side table's length, likewise

    def first(self, k: int, items: Sequence[RefItem]) -> None:
        """Pass 1 over one range: validate, grow the vocabulary, spool ids, count n-grams."""
        refs = RefSet.of(items)
        p = self.plan
        segs, self.vocab = p.encode(refs.texts, p.tokenize, p.lowercase, self.vocab, extend=True)
        np.save(self.spool / f"{k}.ids.npy", segs.ids, allow_pickle=False)
        np.save(self.spool / f"{k}.lens.npy", segs.lens, allow_pickle=False)
        if self.counts is not None:
            self.counts.add(segs)
        self.refs_per_item.update(np.diff(refs.ptr).tolist())

    def second(self, k: int, items: Sequence[RefItem], out: ArrayWriter) -> None:
        """Pass 2 over one range: index it and append its pieces, in whole-set numbering."""
        p = self.plan
        refs = RefSet.of(items)
        lens = np.load(self.spool / f"{k}.lens.npy", allow_pickle=False)
        starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
        segs = Segments(np.load(self.spool / f"{k}.ids.npy", allow_pickle=False), starts, lens)
        index, _ = index_segments(refs, segs, self.vocab, p.tokenize, p.lowercase, p.max_order)
        if isinstance(p.nist, DeltaNIST):
            check_delta_weights(index)
        self._append_refs(refs, index, segs, out)
        self._append_orders(index, out)
        self.items += refs.n_items

    def _append_refs(
        self, refs: RefSet, index: BleuIndex, segs: Segments, out: ArrayWriter
    ) -> None:
        texts: dict[str, np.ndarray] = {}
        pack_strings("refs.texts", refs.texts, texts)
        out.append("refs.texts.blob", texts["refs.texts.blob"])
        out.append("refs.texts.ends", texts["refs.texts.ends"] + self.text_bytes)
        self.text_bytes += len(texts["refs.texts.blob"])
        out.append("refs.weights", refs.weights)
        out.append("refs.ptr", refs.ptr[1:] + self.refs)
        out.append("ref_ptr", index.ref_ptr[1:] + self.refs)
        out.append("ref_lens", index.ref_lens)
        out.append("ref_weights", index.ref_weights)
        out.append("ref_tokens", reference_token_ids(segs))
        self.refs += len(refs.weights)

    def _append_orders(self, index: BleuIndex, out: ArrayWriter) -> None:
        v = index.vocab_size
        info = None
        if self.plan.nist is not None and self.counts is not None:
            info = self.counts.entry_info(index, self.plan.nist.mteval_compat)
        below = self.items  # what the keys' prefixes count from: items, then entries
        prefixes = index.n_items
        for n, table in enumerate(index.orders):
            check_key_range(float(max(below + prefixes, 1)) * v)
            multi_start = np.where(table.multi_start >= 0, table.multi_start + self.multi[n], -1)
            pieces = (
                table.keys + below * v,
                table.max_count,
                table.max_weight,
                multi_start,
                table.multi,
            )
            for (name, _), piece in zip(_ORDER_ARRAYS, pieces, strict=True):
                out.append(f"order{n}.{name}", piece)
            if info is not None:
                out.append(f"order{n}.info", info[n])
            below, prefixes = self.entries[n], len(table.keys)
            self.entries[n] += len(table.keys)
            self.multi[n] += len(table.multi)

    def header(self, metric: Metric, items: Sequence[RefItem]) -> dict[str, Any]:
        """The index file's header (as :func:`.index.save_index` writes it)."""
        p = self.plan
        prepared: dict[str, Any] = {
            "kind": "nist" if p.nist is not None else "bleu",
            "tokenize": p.tokenize,
            "lowercase": p.lowercase,
            "max_order": p.max_order,
            "vocab_size": max(self.vocab.values(), default=0) + 1,
            "orders": p.max_order,
            "ref_tokens": True,
        }
        if p.nist is not None:
            counts = self.refs_per_item
            prepared["nrefs"] = int(next(iter(counts))) if len(counts) == 1 else "var"
            prepared["mteval_compat"] = p.nist.mteval_compat
        return index_header(metric.name, dict(metric.opts), item_ids(items), prepared)

    def start(self, out: ArrayWriter) -> None:
        """What precedes the ranges' pieces: the vocabulary (known after pass 1) and the
        pointers' leading 0."""
        out.append("refs.ptr", np.zeros(1, dtype=np.int64))
        out.append("ref_ptr", np.zeros(1, dtype=np.int64))
        tokens = sorted(self.vocab, key=self.vocab.__getitem__)
        arrays: dict[str, np.ndarray] = {}
        pack_strings("vocab", tokens, arrays)
        arrays["vocab.ids"] = np.array([self.vocab[t] for t in tokens], dtype=np.int64)
        for name, values in arrays.items():
            out.append(name, values)
