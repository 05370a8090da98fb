"""The public function API (used by the Django app and by the CLI)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .base import Metric, MetricInputError, RefItem, ScoreResult
from .index import IndexFile
from .refset import RefItems, RefSet
from .registry import get_entry, get_metric

log = logging.getLogger(__name__)


def nrefs_label(items: Sequence[RefItem]) -> int | str:
    """The number of references per item for signatures, or ``var`` when it varies."""
    if isinstance(items, RefItems):
        return items.nrefs()
    counts = {len(item.refs) for item in items}
    return counts.pop() if len(counts) == 1 else "var"


def _nrefs_of_refset(refs: RefSet) -> int | str:
    counts = set(np.diff(refs.ptr).tolist())
    return int(counts.pop()) if len(counts) == 1 else "var"


def as_metric(metric: str | Metric, **options: Any) -> Metric:
    """A metric instance from a registry name and options (or the instance itself)."""
    if isinstance(metric, Metric):
        if options:
            raise MetricInputError("options are given with a metric instance")
        return metric
    return get_metric(metric, **options)


def score_corpus(
    metric: str | Metric, hyps: Sequence[str], items: Sequence[RefItem], **options: Any
) -> ScoreResult:
    """Score one system: ``hyps[i]`` is the hypothesis for ``items[i]``.

    Example: ``score_corpus("dbleu", hyps, items, definition="paper", max_order=2)``.
    """
    m = as_metric(metric, **options)
    stats = compute_stats(m, hyps, items=items)
    return result_with_nrefs(m, stats.sum(axis=0), nrefs_label(items))


def result_with_nrefs(metric: Metric, summed: np.ndarray, nrefs: int | str) -> ScoreResult:
    """``metric.result(summed)`` with the signature's ``nrefs`` filled in."""
    return replace(metric.result(summed), signature=metric.signature(nrefs))


def compute_stats(
    metric: Metric,
    hyps: Sequence[str],
    items: Sequence[RefItem] | None = None,
    index: IndexFile | None = None,
) -> np.ndarray:
    """Per-item statistics ``(n_items, n_stats)`` against ``items`` or a loaded index file."""
    if index is not None:
        return metric.stats(hyps, prepared_for(metric, index))
    if items is None:
        raise MetricInputError("give the references (items) or an index")
    if len(hyps) != len(items):
        raise MetricInputError(f"{len(hyps)} hypotheses for {len(items)} items")
    return metric.stats_direct(hyps, items)


def build_index(metric: str | Metric, items: Sequence[RefItem], **options: Any) -> IndexFile:
    """Prepare ``items`` for ``metric`` once; save the result with :func:`save_index`."""
    m = as_metric(metric, **options)
    refs = RefSet.of(items)
    return IndexFile(m.name, dict(m.opts), refs, m.prepare(items))


def prepared_for(metric: Metric, index: IndexFile) -> Any:
    """The index's prepared references if ``metric`` can use them, else prepared anew."""
    if (metric.name, metric.opts) == (index.metric, index.options):
        return index.prepared
    if metric.accepts_prepared(index.prepared):
        return index.prepared
    log.warning(
        "index was prepared for %s %s; preparing the references again for %s %s",
        index.metric,
        index.options,
        metric.name,
        metric.opts,
    )
    return metric.prepare(index.refs.items())


def metric_for_index(name: str | None, index: IndexFile, given: dict[str, Any]) -> Metric:
    """The metric to score with an index: options default to the index's where they apply."""
    name = name or index.metric
    specs = {spec.name for spec in get_entry(name).options}
    inherited = {k: v for k, v in index.options.items() if k in specs}
    return get_metric(name, **{**inherited, **given})


def index_nrefs(index: IndexFile) -> int | str:
    """``nrefs`` for signatures of scores computed against ``index``."""
    return _nrefs_of_refset(index.refs)


def stats_slice(
    metric: Metric, hyps: Sequence[str], prepared: Any, start: int, stop: int, n_items: int
) -> np.ndarray:
    """Rows ``start:stop`` of ``metric.stats(all_hyps, prepared)`` from the hypotheses of those
    items only (``hyps``, ``stop - start`` of them), bit for bit.

    The work and memory are those of the slice when the metric can cut its prepared references
    (:meth:`~.base.Metric.prepared_slice`); otherwise every item is scored with the others'
    hypotheses left empty and the slice's rows kept.
    """
    if not 0 <= start <= stop <= n_items or len(hyps) != stop - start:
        raise MetricInputError(f"{len(hyps)} hypotheses for items {start}:{stop} of {n_items}")
    part = metric.prepared_slice(prepared, start, stop)
    if part is not None:
        return metric.stats(hyps, part)
    masked = [""] * n_items
    masked[start:stop] = hyps
    return metric.stats(masked, prepared)[start:stop]
