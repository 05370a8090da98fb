"""ΔBLEU Studio metric library: plain Python + numpy, no Django.

Metrics (registry names): ``dbleu`` (ΔBLEU, Galley et al. 2015; ``definition`` ``paper`` or
``author-2019``), ``bleu`` (= sacrebleu ``corpus_bleu``), ``sbleu`` (mean sentence BLEU+1),
``bleu-sbp`` (strict brevity penalty, Chiang et al. 2008), ``nist`` (mteval-v13a) and ``dnist``
(weighted NIST), ``4grr`` (4-gram recognition rate, Chiang et al. 2008), ``amber`` (AMBER(1,4),
Chen & Kuhn 2011). Every metric follows the contract of
:mod:`.base`: ``prepare(items)`` → picklable reference index; ``stats(hyps, prepared)`` → per-item
statistics ``(n_items, n_stats)``; ``scores_from_stats(summed)`` vectorised; ``result(summed)``.

Public API (import from ``scoring.metrics``):

* ``score_corpus(metric, hyps, items, **options) -> ScoreResult``: one system, end to end.
* ``compute_stats(metric, hyps, items=None, index=None) -> ndarray``: per-item statistics;
  ``stats_slice(metric, hyps, prepared, start, stop, n_items)``: rows start:stop of them from
  those items' hypotheses alone, at the cost of the slice.
* ``build_index(metric, items, **options) -> IndexFile``; ``save_index(path, index_file)``;
  ``load_index(path) -> IndexFile``; ``prepared_for(metric, index_file)``;
  ``metric_for_index(name, index_file, options)``; ``write_index(path, metric, items,
  range_items)``: the file of ``save_index(path, build_index(metric, items))`` built a range of
  items at a time (memory bounded by the range).
* ``get_metric(name, **options) -> Metric``; ``entries()`` / ``get_entry(name)``: the registry
  (name, display name, description, higher-is-better, uses-weights, options with defaults).
* ``bootstrap_ci(metric, stats, n_samples=1000, seed=12345) -> Interval``;
  ``paired_bootstrap(metric, base_stats, sys_stats, …)`` and
  ``paired_approximate_randomization(…) -> PairedResult`` (p-values as sacrebleu).
* ``read_refs_jsonl(path_or_binary_file) -> list[RefItem]``;
  ``read_hyps(path_or_binary_file, item_ids) -> list[str]``; ``parse_ref_item(obj, where)``:
  validating readers whose :class:`MetricInputError` messages name the line and item.
* ``result_with_nrefs(metric, summed, nrefs)``: a result whose signature carries ``nrefs``.

Command line: ``python -m scoring.metrics score|index|list …`` (see :mod:`.cli`).
"""

from .api import (
    build_index,
    compute_stats,
    metric_for_index,
    nrefs_label,
    prepared_for,
    result_with_nrefs,
    score_corpus,
    stats_slice,
)
from .base import Metric, MetricInputError, OptionSpec, RefItem, ScoreResult, WeightedRef
from .build import write_index
from .index import IndexFile, load_index, save_index
from .io import parse_ref_item, read_hyps, read_refs_jsonl
from .registry import entries, get_entry, get_metric, register
from .significance import (
    Interval,
    PairedResult,
    bootstrap_ci,
    paired_approximate_randomization,
    paired_bootstrap,
)
from .version import __version__

__all__ = [
    "IndexFile", "Interval", "Metric", "MetricInputError", "OptionSpec", "PairedResult",
    "RefItem", "ScoreResult", "WeightedRef", "__version__", "bootstrap_ci", "build_index",
    "compute_stats", "entries", "get_entry", "get_metric", "load_index", "metric_for_index",
    "nrefs_label", "paired_approximate_randomization", "paired_bootstrap", "parse_ref_item",
    "prepared_for", "read_hyps", "read_refs_jsonl", "register", "result_with_nrefs",
    "save_index", "score_corpus", "stats_slice", "write_index",
]  # fmt: skip
