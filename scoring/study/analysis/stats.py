"""Per-item statistics of every system for every configuration, each computed once.

References are prepared once per reference set. The BLEU family shares one n-gram index of
order 4 per reference set: BLEU and ΔBLEU rows of order n < 4 are columns of the order-4 rows
(the counts of order n do not depend on the maximum order), and sBLEU's sentence scores of
any order come from BLEU's counts. Other metrics prepare their own index per reference set.
Work is split into tasks (reference set × metric group) that may run in worker processes.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from scoring.metrics import RefItem, WeightedRef, get_metric
from scoring.metrics.amber_batch import amber_stats_batch
from scoring.metrics.grr import best_per_item
from scoring.metrics.matching import MatchCounts
from scoring.metrics.nist import NIST, ReferenceCounts

from .configs import BLEU_FAMILY, Config
from .data import StudyData, ref_items, select_refs

FULL_ORDER = 4
# Metrics whose row for an item depends on one reference chosen by length (see below).
CLOSEST_REFERENCE_METRICS = ("amber",)
CLOSEST = "closest"
# Metrics that share their reference counts (`_prepare`).
NIST_FAMILY = ("nist", "dnist")
# Metrics whose row for an item is that of its best-scoring reference (see below).
BEST_REFERENCE_METRICS = ("4grr",)
BEST = "best"
# Rough cost of one task, to hand the slow ones out first.
_COST = {"dnist": 5, "nist": 5, "4grr": 4, "amber": 3}

log = logging.getLogger(__name__)

Rows = dict[str, np.ndarray]  # system → (n_items, n_stats)
_DATA: StudyData | None = None  # set before forking worker processes (copy-on-write)


def bleu_rows_of_order(rows: np.ndarray, order: int, full: int = FULL_ORDER) -> np.ndarray:
    """BLEU/ΔBLEU rows ``[sys, ref, correct_1..N, total_1..N]`` cut down to order `order`."""
    cols = [0, 1, *range(2, 2 + order), *range(2 + full, 2 + full + order)]
    return rows[:, cols]


def sbleu_rows(bleu_rows: np.ndarray, order: int, item_ids: list[str]) -> np.ndarray:
    """sBLEU rows of order `order` from BLEU rows of order 4 (no second n-gram match)."""
    cut = bleu_rows_of_order(bleu_rows, order)
    counts = MatchCounts(
        hyp_len=cut[:, 0],
        ref_len=cut[:, 1],
        correct=cut[:, 2 : 2 + order],
        total=cut[:, 2 + order :],
        max_weight=np.ones(len(cut)),
    )
    metric: Any = get_metric("sbleu", max_order=order)
    return metric.rows(counts, item_ids)


def _hyps(data: StudyData, system: str) -> list[str]:
    return [h if h is not None else "" for h in data.outputs[system]]


def _bleu_family(data: StudyData, items: list, configs: list[Config]) -> dict[str, Rows]:
    base = get_metric("bleu", max_order=FULL_ORDER)
    prepared = base.prepare(items)
    full: dict[str, Rows] = defaultdict(dict)
    out: dict[str, Rows] = defaultdict(dict)
    for system in data.systems:
        hyps = _hyps(data, system)
        for cfg in configs:
            order = cfg.order or FULL_ORDER
            if cfg.metric in ("bleu", "sbleu", "dbleu"):
                source = "dbleu" if cfg.metric == "dbleu" else "bleu"
                if system not in full[source]:
                    metric = get_metric(source, max_order=FULL_ORDER)
                    full[source][system] = metric.stats(hyps, prepared)
                rows = full[source][system]
                if cfg.metric == "sbleu":
                    out[cfg.key][system] = sbleu_rows(rows, order, data.item_ids)
                else:
                    out[cfg.key][system] = bleu_rows_of_order(rows, order)
            else:
                metric = get_metric(cfg.metric, max_order=order)
                out[cfg.key][system] = metric.stats(hyps, prepared)
    return dict(out)


def _other(data: StudyData, items: list, configs: list[Config]) -> dict[str, Rows]:
    out: dict[str, Rows] = {}
    shared: dict[tuple, ReferenceCounts] = {}
    for cfg in configs:
        metric = get_metric(cfg.metric, **cfg.metric_options)
        prepared = _prepare(metric, items, shared)
        out[cfg.key] = {s: metric.stats(_hyps(data, s), prepared) for s in data.systems}
    return out


def _prepare(metric: Any, items: list, shared: dict[tuple, ReferenceCounts]) -> Any:
    """NIST and ΔNIST of one reference set count the references' n-grams once."""
    if not isinstance(metric, NIST):
        return metric.prepare(items)
    key = (metric.tokenize, metric.lowercase, metric.order)
    if key not in shared:
        shared[key] = metric.reference_counts(items)
    return metric.index_from_counts(shared[key])


def _closest_rows(data: StudyData, configs: list[Config]) -> dict[str, Rows]:
    """AMBER scores each output against one reference, the closest in length, so reference
    sets that pick the same reference for an item share its row: each (output, reference)
    pair is scored once across all reference sets (AMBER costs the most of all metrics)."""
    out: dict[str, Rows] = defaultdict(dict)
    metric: Any = get_metric(configs[0].metric, **configs[0].metric_options)
    refsets = {c.key: metric.prepare(ref_items(data, c.refset, c.theta)[0]) for c in configs}
    for system in data.systems:
        hyps = _hyps(data, system)
        unique: dict[tuple[int, tuple[str, ...]], int] = {}
        picks: dict[str, list[int]] = {}
        words: list[list[str]] = []
        for key, prepared in refsets.items():
            words, closest = metric.aligned_words(hyps, prepared)
            picks[key] = [
                unique.setdefault((k, tuple(ref)), len(unique)) for k, ref in enumerate(closest)
            ]
        pairs = list(unique)
        rows = amber_stats_batch([words[k] for k, _ in pairs], [list(r) for _, r in pairs])
        for key, chosen in picks.items():
            out[key][system] = rows[chosen]
    return dict(out)


def _best_rows(data: StudyData, configs: list[Config]) -> dict[str, Rows]:
    """4-GRR keeps, per item, its best-scoring reference: every (output, reference) pair is
    scored once against all the item's references, and each reference set picks the best
    among its own (every reference set is a subset of the item's references)."""
    metric: Any = get_metric(configs[0].metric, **configs[0].metric_options)
    every = [
        RefItem(item_id, tuple(WeightedRef(r.text, r.weight) for r in refs))
        for item_id, refs in zip(data.item_ids, data.refs, strict=True)
    ]
    prepared = metric.prepare(every)
    members = {c.key: _members(data, c) for c in configs}
    out: dict[str, Rows] = defaultdict(dict)
    n = len(data.item_ids)
    for system in data.systems:
        num, den, owner = metric.pair_rows(_hyps(data, system), prepared)
        for key, chosen in members.items():
            out[key][system] = best_per_item(num[chosen], den[chosen], owner[chosen], n)
    return dict(out)


def _members(data: StudyData, cfg: Config) -> np.ndarray:
    """Whether each (item, reference) pair, items in order, belongs to `cfg`'s reference set."""
    flags: list[bool] = []
    for refs in data.refs:
        # By identity, as a set: an item with 1,000 references made this quadratic (~1 s).
        chosen = {id(c) for c in select_refs(refs, cfg.refset, cfg.theta)}
        flags.extend(id(r) in chosen for r in refs)
    return np.array(flags, dtype=bool)


def _run_task(task: tuple[str, float | None, tuple[Config, ...]]) -> tuple[dict, int]:
    data = _DATA
    if data is None:
        raise RuntimeError("study data missing in the worker process")
    refset, theta, configs = task
    if refset == CLOSEST:
        return _closest_rows(data, list(configs)), -1
    if refset == BEST:
        return _best_rows(data, list(configs)), -1
    items, fallbacks = ref_items(data, refset, theta)
    family = [c for c in configs if c.metric in BLEU_FAMILY]
    others = [c for c in configs if c.metric not in BLEU_FAMILY]
    result = {}
    if family:
        result.update(_bleu_family(data, items, family))
    if others:
        result.update(_other(data, items, others))
    return result, fallbacks


def _tasks(configs: Iterable[Config]) -> list[tuple[str, float | None, tuple[Config, ...]]]:
    groups: dict[tuple, list[Config]] = defaultdict(list)
    for cfg in {c.key: c for c in configs}.values():
        if cfg.metric in CLOSEST_REFERENCE_METRICS:
            groups[(CLOSEST, None, cfg.metric)].append(cfg)
            continue
        if cfg.metric in BEST_REFERENCE_METRICS:
            groups[(BEST, None, cfg.metric)].append(cfg)
            continue
        group = "bleu-family" if cfg.metric in BLEU_FAMILY else cfg.metric
        group = "nist-family" if cfg.metric in NIST_FAMILY else group
        groups[(cfg.refset, cfg.theta, group)].append(cfg)
    tasks = [(refset, theta, tuple(cfgs)) for (refset, theta, _), cfgs in groups.items()]
    return sorted(tasks, key=lambda t: -max(_COST.get(c.metric, 1) for c in t[2]))


def compute_stats(
    data: StudyData,
    configs: Iterable[Config],
    processes: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, Rows], dict[str, int]]:
    """Rows per configuration key and system, and per reference set the fallback count.

    `processes` > 1 forks worker processes, except in a daemonic process (a Celery prefork
    worker's child), which may not have children: there the tasks run one after another."""
    global _DATA
    tasks = _tasks(configs)
    if processes > 1 and multiprocessing.current_process().daemon:
        log.warning("a daemonic process cannot fork: study statistics run in one process")
        processes = 1
    _DATA = data
    try:
        if processes > 1 and len(tasks) > 1:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(processes, mp_context=context) as pool:
                return _collect(tasks, pool.map(_run_task, tasks), progress)
        return _collect(tasks, map(_run_task, tasks), progress)
    finally:
        _DATA = None


def _collect(
    tasks: list[tuple[str, float | None, tuple[Config, ...]]],
    results: Iterable[tuple[dict, int]],
    progress: Callable[[int, int], None] | None,
) -> tuple[dict[str, Rows], dict[str, int]]:
    """The tasks' rows and fallback counts, reporting progress as each result arrives."""
    stats: dict[str, Rows] = {}
    fallbacks: dict[str, int] = {}
    for done, (task, (rows, fb)) in enumerate(zip(tasks, results, strict=True)):
        stats.update(rows)
        if fb >= 0:
            fallbacks[task[2][0].refs] = fb
        if progress:
            progress(done + 1, len(tasks))
    return stats, fallbacks
