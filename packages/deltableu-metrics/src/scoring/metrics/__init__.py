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
* ``bootstrap_ci(metric, stats, n_samples=1000, seed=12345) -> Interval`` and
  ``bootstrap_replicates(…)`` (the resampled scores it takes the bounds of);
  ``paired_bootstrap(metric, base_stats, sys_stats, …)`` and
  ``paired_approximate_randomization(…) -> PairedResult`` (p-values as sacrebleu's);
  ``paired_bootstrap_matrix(metric, [stats, …])`` every pair's bootstrap p-value at once,
  ``holm_adjust(p_values)`` for a family of tests, and ``equal_scores_p(p_values, scores_a,
  scores_b)``: p = 1 for equal corpus scores, the rule of every table and ranking
  (``PairedResult.rank_p_value`` applies it to one test).
* ``read_refs_jsonl(path_or_binary_file) -> RefItems`` (a sequence of ``RefItem``);
  ``read_hyps(path_or_binary_file, item_ids) -> list[str]``; ``parse_ref_item(obj, where)``:
  validating readers whose :class:`MetricInputError` messages name the line and item.
* ``result_with_nrefs(metric, summed, nrefs)``: a result whose signature carries ``nrefs``.
* Rankings that say how much they depend on the raters (``dbleu`` and ``dnist``):
  ``weight_profile(metric, hyps, refs, prepared=None) -> WeightProfile``, one system's
  statistics as a function of the reference weights (``.rows(weights)``,
  ``.summed(weights, item_counts)``, ``.save(path)`` / ``WeightProfile.load(path)``),
  ``concat_profiles(parts)``; ``RatingPools`` (each reference's ratings);
  ``two_level_bootstrap(metric, profile, pools, n_samples=1000, seed=12345)`` replicate
  scores that resample items and ratings, paired across systems, and ``rater_replicates(…) ->
  RaterReplicates`` the same recentred on the item bootstrap (a maximum over noisy weights
  biases them upward; see its docstring); ``rank_stability(replicates)
  -> RankStability``; ``score_gradient(metric, profile, weights)``; ``percentile_bounds``.

Command line: ``dbleu score|index|list …`` or ``python -m scoring.metrics …`` (see :mod:`.cli`).

Names are imported on first use (PEP 562), so that ``dbleu --version`` and ``import
scoring.metrics.cli`` load neither numpy nor the metrics.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:
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
    from .base import (
        Metric,
        MetricInputError,
        OptionSpec,
        RefItem,
        ScoreResult,
        WeightedRef,
    )
    from .build import (
        write_index,
    )
    from .index import (
        IndexFile,
        load_index,
        save_index,
    )
    from .io import (
        parse_ref_item,
        read_hyps,
        read_refs_jsonl,
    )
    from .rank_distribution import (
        RankStability,
        rank_stability,
    )
    from .rater_bootstrap import (
        RaterReplicates,
        RatingPools,
        rater_replicates,
        score_gradient,
        two_level_bootstrap,
        weight_of,
    )
    from .rater_correction import (
        BoardDraws,
        RaterEstimate,
        board_draws,
        rater_estimate,
        rater_estimates,
    )
    from .rater_model import (
        RaterModel,
        RaterModelUnavailable,
        fit_rater_model,
    )
    from .refset import (
        RefItems,
    )
    from .registry import (
        entries,
        get_entry,
        get_metric,
        register,
    )
    from .significance import (
        Interval,
        PairedResult,
        bootstrap_ci,
        bootstrap_replicates,
        equal_scores_p,
        paired_approximate_randomization,
        paired_bootstrap,
        percentile_bounds,
    )
    from .weight_profiles import (
        WeightProfile,
        concat_profiles,
    )
    from .weight_profiles_build import (
        weight_profile,
    )

_WHERE = {
    "build_index": "api",
    "compute_stats": "api",
    "metric_for_index": "api",
    "nrefs_label": "api",
    "prepared_for": "api",
    "result_with_nrefs": "api",
    "score_corpus": "api",
    "stats_slice": "api",
    "Metric": "base",
    "MetricInputError": "base",
    "OptionSpec": "base",
    "RefItem": "base",
    "ScoreResult": "base",
    "WeightedRef": "base",
    "write_index": "build",
    "IndexFile": "index",
    "load_index": "index",
    "save_index": "index",
    "parse_ref_item": "io",
    "read_hyps": "io",
    "read_refs_jsonl": "io",
    "RankStability": "rank_distribution",
    "RatingPools": "rater_bootstrap",
    "rank_stability": "rank_distribution",
    "score_gradient": "rater_bootstrap",
    "two_level_bootstrap": "rater_bootstrap",
    "RaterReplicates": "rater_bootstrap",
    "rater_replicates": "rater_bootstrap",
    "weight_of": "rater_bootstrap",
    "BoardDraws": "rater_correction",
    "RaterEstimate": "rater_correction",
    "board_draws": "rater_correction",
    "rater_estimate": "rater_correction",
    "rater_estimates": "rater_correction",
    "RaterModel": "rater_model",
    "RaterModelUnavailable": "rater_model",
    "fit_rater_model": "rater_model",
    "RefItems": "refset",
    "entries": "registry",
    "get_entry": "registry",
    "get_metric": "registry",
    "register": "registry",
    "Interval": "significance",
    "PairedResult": "significance",
    "bootstrap_ci": "significance",
    "equal_scores_p": "significance",
    "holm_adjust": "significance",
    "paired_approximate_randomization": "significance",
    "paired_bootstrap": "significance",
    "paired_bootstrap_matrix": "significance",
    "percentile_bounds": "significance",
    "bootstrap_replicates": "significance",
    "WeightProfile": "weight_profiles",
    "concat_profiles": "weight_profiles",
    "weight_profile": "weight_profiles_build",
}


def __getattr__(name: str) -> Any:
    """The public names, each imported from its module on first use."""
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__all__ = [
    "BoardDraws",
    "IndexFile",
    "Interval",
    "Metric",
    "MetricInputError",
    "OptionSpec",
    "PairedResult",
    "RankStability",
    "RaterEstimate",
    "RaterModel",
    "RaterModelUnavailable",
    "RaterReplicates",
    "RatingPools",
    "RefItem",
    "RefItems",
    "ScoreResult",
    "WeightProfile",
    "WeightedRef",
    "__version__",
    "board_draws",
    "bootstrap_ci",
    "bootstrap_replicates",
    "build_index",
    "compute_stats",
    "concat_profiles",
    "entries",
    "equal_scores_p",
    "fit_rater_model",
    "get_entry",
    "get_metric",
    "holm_adjust",
    "load_index",
    "metric_for_index",
    "nrefs_label",
    "paired_approximate_randomization",
    "paired_bootstrap",
    "paired_bootstrap_matrix",
    "parse_ref_item",
    "percentile_bounds",
    "prepared_for",
    "rank_stability",
    "rater_estimate",
    "rater_estimates",
    "rater_replicates",
    "read_hyps",
    "read_refs_jsonl",
    "register",
    "result_with_nrefs",
    "save_index",
    "score_corpus",
    "score_gradient",
    "stats_slice",
    "two_level_bootstrap",
    "weight_of",
    "weight_profile",
    "write_index",
]
