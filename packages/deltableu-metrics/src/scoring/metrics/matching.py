"""Hypotheses against references → per-item BLEU-family counts (Galley et al. 2015, sec. 3).

Two routes give identical numbers:

* :func:`match_index`: against a prebuilt :class:`~.index.BleuIndex` (the leaderboard path:
  only the hypotheses are tokenized);
* :func:`match_direct`: straight from the references, without building a full index: the
  hypotheses' n-grams form the table and the references are looked up in it, so reference
  n-grams absent from the hypothesis of their item are dropped at once (the end-to-end path).

``definition`` selects what a hypothesis n-gram g occurring c times in item i earns:
``counts`` min(c, M) (plain BLEU, weights ignored), ``author-2019`` W · min(c, M), ``paper``
max_j w_ij · min(c, #g(r_ij)); see :mod:`.index` for M and W.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .base import MetricInputError
from .index import BleuIndex
from .ngrams import Positions, build_tables, lookup, ref_counts
from .refset import RefSet
from .tokenizers import Segments, encode

DEFINITIONS = ("paper", "author-2019", "counts")
REF_LENGTH_RULES = ("closest", "shortest")


@dataclass
class MatchCounts:
    """Per-item counts; ``correct`` may be negative with negative weights (per item)."""

    hyp_len: np.ndarray  # (n_items,)
    ref_len: np.ndarray  # (n_items,) effective reference length under the chosen rule
    correct: np.ndarray  # (n_items, max_order) earned (weighted) n-gram matches
    total: np.ndarray  # (n_items, max_order) hypothesis n-grams, unweighted
    max_weight: np.ndarray  # (n_items,) largest reference weight of the item


def effective_ref_len(
    hyp_len: np.ndarray, ref_lens: np.ndarray, ptr: np.ndarray, rule: str
) -> np.ndarray:
    """Per-item reference length: ``closest`` to the hypothesis (ties → shorter), or
    ``shortest`` (BLEU, Papineni et al. 2002; sacrebleu's ``_get_closest_ref_len``)."""
    starts = ptr[:-1]
    if rule == "shortest":
        return np.minimum.reduceat(ref_lens, starts)
    if rule != "closest":
        raise MetricInputError(f"unknown ref-length rule {rule!r}")
    nrefs = np.diff(ptr)
    diff = np.abs(ref_lens - np.repeat(hyp_len, nrefs))
    big = int(ref_lens.max(initial=0)) + 1
    return np.minimum.reduceat(diff * big + ref_lens, starts) % big


def hyp_totals(hyp_len: np.ndarray, max_order: int) -> np.ndarray:
    """|n-grams_n(h_i)| = max(len − n + 1, 0) for n = 1..``max_order`` (float64)."""
    orders = np.arange(1, max_order + 1)
    return np.maximum(hyp_len[:, None] - orders[None, :] + 1, 0).astype(np.float64)


def _earned(definition: str, c: np.ndarray, m: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Earned amount for hypothesis count ``c`` given M and W (``counts``/``author-2019``)."""
    clipped = np.minimum(c, m).astype(np.float64)
    out: np.ndarray = clipped if definition == "counts" else w * clipped
    return out


def _check(n_hyps: int, n_items: int, definition: str) -> None:
    if n_hyps != n_items:
        raise MetricInputError(f"{n_hyps} hypotheses for {n_items} items")
    if definition not in DEFINITIONS:
        raise MetricInputError(f"unknown definition {definition!r}")


def match_index(
    hyps: Sequence[str], index: BleuIndex, max_order: int, definition: str, ref_length: str
) -> MatchCounts:
    """Per-item counts of ``hyps`` (one per item, in order) against a prebuilt index."""
    _check(len(hyps), index.n_items, definition)
    n = index.n_items
    segs, _ = encode(hyps, index.tokenize, index.lowercase, vocab=index.vocab)
    pos = Positions.of(segs, np.arange(n, dtype=np.int64))
    tables = [t.keys for t in index.orders[:max_order]]
    entries = lookup(pos, tables, index.vocab_size)
    correct = np.zeros((n, max_order))
    for k, (table, entry) in enumerate(zip(index.orders, entries, strict=False)):
        found = np.flatnonzero(entry >= 0)
        e, first, c = np.unique(entry[found], return_index=True, return_counts=True)
        if definition == "paper":
            value = table.paper(e, c)
        else:
            value = _earned(definition, c, table.max_count[e], table.max_weight[e])
        correct[:, k] = np.bincount(pos.item_of_pos[found[first]], weights=value, minlength=n)
    hyp_len = segs.lens
    return MatchCounts(
        hyp_len,
        effective_ref_len(hyp_len, index.ref_lens, index.ref_ptr, ref_length),
        correct,
        hyp_totals(hyp_len, max_order),
        np.maximum.reduceat(index.ref_weights, index.ref_ptr[:-1]),
    )


@dataclass
class EntryPositions:
    """Hypotheses and references of a range of items looked up in one set of n-gram tables:
    per order, each position's entry (-1 where none) on both sides."""

    hyp_lens: np.ndarray  # (n_items,) hypothesis lengths in tokens
    ref_lens: np.ndarray  # (n_refs,) reference lengths in tokens
    hpos: Positions  # the hypotheses' positions (segment k = item k)
    h_entries: list[np.ndarray]  # per order, each hypothesis position's entry
    r_entries: list[np.ndarray]  # per order, each reference position's entry
    ref_of_pos: np.ndarray  # the reference of each reference position


def direct_entries(
    hyps: Sequence[str],
    refs: RefSet,
    tokenize: str,
    lowercase: bool,
    max_order: int,
    cache: bool = True,
) -> EntryPositions:
    """The direct route's lookup (Galley et al. 2015, sec. 3: only hypothesis n-grams found in
    a reference of the same item count): the hypotheses' n-grams form the tables, and each
    reference position is looked up in them (reference n-grams absent from their item's
    hypothesis get -1 at once). ``cache``: keep the tokens in the token cache."""
    n = refs.n_items
    hsegs, vocab = encode(hyps, tokenize, lowercase, cache=cache)
    # A token that no hypothesis has can match nothing: the references are read in the
    # hypotheses' vocabulary (id -1 for such a token), so their own words are never collected
    # into it (a pass over every reference token, ~15 % of a `dbleu` run), and their tokens are
    # cached apart from any one system's, for the next system scored against them.
    rsegs, _ = encode(refs.texts, tokenize, lowercase, vocab, cache=cache)
    vocab_size = max(vocab.values(), default=0) + 1
    hpos = Positions.of(hsegs, np.arange(n, dtype=np.int64))
    tables, h_entries = build_tables(hpos, max_order, vocab_size, n)
    rpos = Positions.of(rsegs, refs.item_of_ref)
    r_entries = lookup(rpos, tables, vocab_size)
    ref_of_pos = np.repeat(np.arange(len(refs.texts), dtype=np.int64), rsegs.lens)
    return EntryPositions(hsegs.lens, rsegs.lens, hpos, h_entries, r_entries, ref_of_pos)


@dataclass
class OrderGroups:
    """One order's *groups*: the distinct hypothesis n-grams g of an item found in one of its
    references, sorted by entry, each with its *rows*: the references r_ij containing g."""

    item: np.ndarray  # (n_groups,) the group's item
    entry: np.ndarray  # (n_groups,) the group's entry
    hyp_count: np.ndarray  # (n_groups,) c = #g(h_i)
    starts: np.ndarray  # (n_groups,) the group's first row
    ref: np.ndarray  # (n_rows,) the row's reference (index in the RefSet)
    count: np.ndarray  # (n_rows,) #g(r_ij)
    clipped: np.ndarray  # (n_rows,) min(c, #g(r_ij)): what the paper definition weighs

    def max_count(self) -> np.ndarray:
        """M = max_j #g(r_ij) of each group (plain BLEU's clip)."""
        return np.maximum.reduceat(self.count, self.starts)


def order_groups(
    hpos: Positions, h_entry: np.ndarray, r_entry: np.ndarray, ref_of_pos: np.ndarray, n_refs: int
) -> OrderGroups:
    """The groups of one order (see :class:`OrderGroups`); every entry of ``r_entry`` (≥ 0)
    must occur in ``h_entry``."""
    hyp_found = np.flatnonzero(h_entry >= 0)
    n_entries = int(h_entry.max(initial=-1)) + 1
    c_e = np.bincount(h_entry[hyp_found], minlength=n_entries)
    item_e = np.zeros(n_entries, dtype=np.int64)
    item_e[h_entry[hyp_found]] = hpos.item_of_pos[hyp_found]
    rc = ref_counts(r_entry, ref_of_pos, n_refs)
    ge = rc.group_entry
    clipped = np.minimum(c_e[rc.entry], rc.count)
    return OrderGroups(item_e[ge], ge, c_e[ge], rc.group_starts, rc.ref, rc.count, clipped)


def _direct_order(groups: OrderGroups, weights: np.ndarray, definition: str, n: int) -> np.ndarray:
    """Per-item earned amounts of one order (direct route)."""
    if not len(groups.starts):
        return np.zeros(n)
    gs = groups.starts
    w_rows = weights[groups.ref]
    if definition == "paper":
        value = np.maximum.reduceat(w_rows * groups.clipped, gs)
    else:
        m = groups.max_count()
        value = _earned(definition, groups.hyp_count, m, np.maximum.reduceat(w_rows, gs))
    return np.bincount(groups.item, weights=value, minlength=n)


def match_direct(
    hyps: Sequence[str],
    refs: RefSet,
    tokenize: str,
    lowercase: bool,
    max_order: int,
    definition: str,
    ref_length: str,
    cache: bool = True,
) -> MatchCounts:
    """Per-item counts of ``hyps`` against ``refs`` without a prebuilt index (same numbers);
    ``cache``: keep the tokens in the token cache (see :func:`.tokenizers.encode`)."""
    _check(len(hyps), refs.n_items, definition)
    n = refs.n_items
    ep = direct_entries(hyps, refs, tokenize, lowercase, max_order, cache)
    correct = np.zeros((n, max_order))
    for k in range(max_order):
        groups = order_groups(
            ep.hpos, ep.h_entries[k], ep.r_entries[k], ep.ref_of_pos, len(refs.texts)
        )
        correct[:, k] = _direct_order(groups, refs.weights, definition, n)
    return MatchCounts(
        ep.hyp_lens,
        effective_ref_len(ep.hyp_lens, ep.ref_lens, refs.ptr, ref_length),
        correct,
        hyp_totals(ep.hyp_lens, max_order),
        np.maximum.reduceat(refs.weights, refs.ptr[:-1]),
    )


__all__ = [
    "EntryPositions",
    "MatchCounts",
    "OrderGroups",
    "Segments",
    "direct_entries",
    "effective_ref_len",
    "hyp_totals",
    "match_direct",
    "match_index",
    "order_groups",
]
