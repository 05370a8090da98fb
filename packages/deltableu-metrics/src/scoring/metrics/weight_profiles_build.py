"""Building a :class:`~.weight_profiles.WeightProfile` with the metric's own n-gram lookups.

Three routes, each the route the metric itself takes, so that the profile's rows equal the
metric's bit for bit (same groups, same float operations, same order of summation):

* ΔBLEU, ``prepared`` None: :func:`.matching.direct_entries`, in slices of
  :data:`.bleu.DIRECT_ITEMS` items cut where ``DeltaBLEU.stats_direct`` cuts them (an item's
  groups are summed in the order of its slice's n-gram table): rows = ``stats_direct``.
* ΔBLEU with a :class:`~.index.BleuIndex` (or a ``prepared_slice`` of one): the index's
  tables, as :func:`.matching.match_index`: rows = ``metric.stats(hyps, prepared)``. The two
  ΔBLEU routes differ by rounding only (an item's groups come in another order).
* ΔNIST: a :class:`~.nist.tables.NISTIndex` (given, or prepared from ``refs``) gives the whole
  test set's information weights and the tables; an item's groups are summed in the order of
  first occurrence in its hypothesis, as ``NIST.stats`` sums them.

The index routes read the references' token ids the index kept (its tables keep no
per-reference counts), or tokenize them again from an index file written without them. Items
are processed :data:`.bleu.DIRECT_ITEMS` at a time, so memory stays flat whatever the corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# The module, not the package (`from . import bleu` reads as an import of the package, whose
# typing imports list this module): DIRECT_ITEMS is read at each call, as stats_direct does.
import scoring.metrics.bleu as bleu

from .base import Metric, MetricInputError, RefItem, check_hypotheses
from .bleu import DeltaBLEU
from .index import BleuIndex
from .matching import (
    EntryPositions,
    OrderGroups,
    direct_entries,
    effective_ref_len,
    hyp_totals,
    order_groups,
)
from .ngrams import Positions, lookup
from .nist.metric import DeltaNIST
from .nist.tables import NISTIndex
from .refset import RefItems, RefSet
from .tokenizers import Segments, encode, encode_nist
from .weight_profiles import ProfileOrder, WeightProfile, compact, concat_profiles, index_dtype

Encoder = Callable[..., tuple[Segments, dict[str, int]]]


def weight_profile(
    metric: Metric,
    hyps: Sequence[str],
    refs: RefSet | Sequence[RefItem],
    prepared: Any = None,
) -> WeightProfile:
    """The weight profile of ``hyps`` (one per item) against ``refs`` for ``metric``.

    Args:
        metric: ``dbleu`` (either definition, any tokenizer, order, case) or ``dnist``.
        hyps: one hypothesis per item, in item order.
        refs: the references (a :class:`RefSet` or a sequence of :class:`RefItem`).
        prepared: ΔBLEU: None (the direct route: rows equal ``metric.stats_direct``) or a
            :class:`BleuIndex` of these references (rows equal ``metric.stats(hyps,
            prepared)``). ΔNIST: its index (the whole test set's, or a ``prepared_slice`` of
            it: information weights stay the test set's); None prepares one from ``refs``.

    Returns:
        The :class:`WeightProfile` (see :mod:`.weight_profiles` for what it holds).

    Raises:
        MetricInputError: another metric (no weights, or no profile), a hypothesis count that
            differs from the items', an index built with other options or for other items.
    """
    refset = refs if isinstance(refs, RefSet) else RefSet.of(refs)
    metric = _supported(metric)
    check_hypotheses(hyps, refset.item_ids)
    if not refset.n_items:
        raise MetricInputError("no items to profile")
    if isinstance(metric, DeltaNIST) and prepared is None:
        prepared = metric.prepare(RefItems(refset))
    if prepared is not None:
        _check_prepared(metric, prepared, refset)
    n, step = refset.n_items, bleu.DIRECT_ITEMS
    parts = [
        _part(metric, hyps, refset, prepared, a, min(a + step, n), n <= step)
        for a in range(0, n, step)
    ]
    return parts[0] if len(parts) == 1 else concat_profiles(parts)


def _part(
    metric: DeltaBLEU | DeltaNIST,
    hyps: Sequence[str],
    refs: RefSet,
    prepared: Any,
    a: int,
    b: int,
    cache: bool,
) -> WeightProfile:
    """The profile of items ``a:b``."""
    if isinstance(metric, DeltaNIST):
        index = metric.prepared_slice(prepared, a, b)
        return _nist_part(metric, hyps[a:b], refs.part(a, b), index)
    part = None if prepared is None else metric.prepared_slice(prepared, a, b)
    return _bleu_part(metric, hyps[a:b], refs.part(a, b), part, cache)


def _supported(metric: Metric) -> DeltaBLEU | DeltaNIST:
    if isinstance(metric, DeltaBLEU | DeltaNIST) and type(metric) in (DeltaBLEU, DeltaNIST):
        return metric
    reason = "only dbleu and dnist have one" if metric.uses_weights else "it ignores weights"
    raise MetricInputError(f"metric {metric.name!r} has no weight profile: {reason}")


def _check_prepared(metric: Metric, prepared: Any, refs: RefSet) -> None:
    if not metric.accepts_prepared(prepared):
        raise MetricInputError(f"{metric.name}: the reference index was built with other options")
    tables: BleuIndex = prepared.tables if isinstance(prepared, NISTIndex) else prepared
    if tables.item_ids != refs.item_ids or len(tables.ref_lens) != len(refs.texts):
        raise MetricInputError("the reference index was built for other references")


def _index_entries(
    hyps: Sequence[str], refs: RefSet, tables: BleuIndex, max_order: int, encoder: Encoder
) -> EntryPositions:
    """Hypotheses and references looked up in an index's tables (as ``match_index`` and
    ``NIST.stats`` look hypotheses up), reference positions kept only where their entry occurs
    in the item's hypothesis."""
    v, tok, lc = tables.vocab_size, tables.tokenize, tables.lowercase
    keys = [t.keys for t in tables.orders[:max_order]]
    hsegs, _ = encoder(hyps, tok, lc, vocab=tables.vocab)
    rsegs = _reference_segments(refs, tables, encoder)
    hpos = Positions.of(hsegs, np.arange(len(hyps), dtype=np.int64))
    h_entries = lookup(hpos, keys, v)
    r_entries = lookup(Positions.of(rsegs, refs.item_of_ref), keys, v)
    for table, h, r in zip(keys, h_entries, r_entries, strict=True):
        if not len(table):  # no reference n-gram of this order in these items: nothing found
            continue
        in_hyp = np.zeros(len(table), dtype=bool)
        in_hyp[h[h >= 0]] = True
        in_ref = np.zeros(len(table), dtype=bool)
        in_ref[r[r >= 0]] = True
        if not in_ref[h[h >= 0]].all():  # else a group would silently lose its rows
            raise MetricInputError("the references differ from the ones the index was built of")
        r[(r >= 0) & ~in_hyp[np.maximum(r, 0)]] = -1
    ref_of_pos = np.repeat(np.arange(len(refs.texts), dtype=np.int64), rsegs.lens)
    return EntryPositions(hsegs.lens, rsegs.lens, hpos, h_entries, r_entries, ref_of_pos)


def _reference_segments(refs: RefSet, tables: BleuIndex, encoder: Encoder) -> Segments:
    """The references' token ids: the index's own (kept when it was built, the same ids its
    tables were made of), or, from an index file without them, the references tokenized."""
    if tables.ref_tokens is None:
        return encoder(refs.texts, tables.tokenize, tables.lowercase, vocab=tables.vocab)[0]
    lens = np.asarray(tables.ref_lens, dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
    return Segments(np.asarray(tables.ref_tokens, dtype=np.int64), starts, lens)


def _groups(ep: EntryPositions, k: int, n_refs: int) -> OrderGroups:
    return order_groups(ep.hpos, ep.h_entries[k], ep.r_entries[k], ep.ref_of_pos, n_refs)


def _order(groups: OrderGroups, mult: np.ndarray, amount: np.ndarray, n_refs: int) -> ProfileOrder:
    return ProfileOrder(
        groups.item.astype(np.int32),
        compact(mult),
        groups.starts.astype(np.int64),
        groups.ref.astype(index_dtype(n_refs)),
        compact(amount),
    )


def _profile(
    metric: Metric,
    refs: RefSet,
    cols: tuple[list[int], list[int], list[int]],
    fixed: np.ndarray,
    den_base: np.ndarray,
    orders: list[ProfileOrder],
) -> WeightProfile:
    num, den, fix = cols
    return WeightProfile(
        metric.name,
        dict(metric.opts),
        list(refs.item_ids),
        len(num) + len(den) + len(fix),
        num,
        den,
        fix,
        np.asarray(refs.ptr, dtype=np.int64),
        np.asarray(refs.weights, dtype=np.float64),
        fixed,
        compact(den_base),
        orders,
    )


def _bleu_part(
    metric: DeltaBLEU, hyps: Sequence[str], refs: RefSet, index: BleuIndex | None, cache: bool
) -> WeightProfile:
    """One slice of ΔBLEU (rows ``[hyp_len, ref_len, correct_1..N, total_1..N]``)."""
    n_ord, n_refs = metric.max_order, len(refs.texts)
    if index is None:
        tok, lc = metric.opts["tokenize"], metric.opts["lowercase"]
        ep = direct_entries(hyps, refs, tok, lc, n_ord, cache)
        ref_lens = ep.ref_lens
    else:
        ep = _index_entries(hyps, refs, index, n_ord, encode)
        ref_lens = index.ref_lens
    orders = []
    for k in range(n_ord):
        g = _groups(ep, k, n_refs)
        if metric.definition == "paper":  # max_j w_j · min(c, #g(r_j))
            orders.append(_order(g, np.ones(len(g.starts)), g.clipped, n_refs))
        else:  # min(c, M) · max_j w_j
            m = g.max_count() if len(g.starts) else g.count
            orders.append(_order(g, np.minimum(g.hyp_count, m), np.ones(len(g.ref)), n_refs))
    ref_len = effective_ref_len(ep.hyp_lens, ref_lens, refs.ptr, metric.opts["ref_length"])
    fixed = np.column_stack([ep.hyp_lens, ref_len]).astype(np.float64)
    cols = (list(range(2, 2 + n_ord)), list(range(2 + n_ord, 2 + 2 * n_ord)), [0, 1])
    return _profile(metric, refs, cols, fixed, hyp_totals(ep.hyp_lens, n_ord), orders)


def _first_seen(h_entry: np.ndarray, entries: np.ndarray) -> np.ndarray:
    """The permutation that puts ``entries`` in order of first occurrence in the hypotheses
    (NIST's order of summation, ``NIST._matched_info``)."""
    found = np.flatnonzero(h_entry >= 0)
    e, first = np.unique(h_entry[found], return_index=True)
    return np.argsort(first[np.searchsorted(e, entries)])


def _nist_part(
    metric: DeltaNIST, hyps: Sequence[str], refs: RefSet, index: NISTIndex
) -> WeightProfile:
    """One slice of ΔNIST (rows ``[num_1..N, den_1..N, hyp_len, ref_len]``)."""
    n_ord, n_refs = metric.order, len(refs.texts)
    ep = _index_entries(hyps, refs, index.tables, n_ord, encode_nist)
    orders = []
    for k in range(n_ord):
        g = _groups(ep, k, n_refs)  # Info(g) · max_j w_j · min(c, #g(r_j))
        order = _order(g, np.asarray(index.entry_info[k])[g.entry], g.clipped, n_refs)
        orders.append(order.permuted(_first_seen(ep.h_entries[k], g.entry)))
    size = ep.hyp_lens
    fixed = np.column_stack([size, index.ref_len]).astype(np.float64)
    den_base = np.maximum(size[:, None] - np.arange(n_ord), 0)
    cols = (list(range(n_ord)), list(range(n_ord, 2 * n_ord)), [2 * n_ord, 2 * n_ord + 1])
    return _profile(metric, refs, cols, fixed, den_base, orders)
