"""Observations: the metric and human differences of every unit of every system pair.

An observation is (metric(A) − metric(B), mean human difference A − B) on a unit of M items of
the pair (A, B) (paper, sec. 5). A set of observations is an array (sets, units): one row per
random assignment of items to units (`AssignmentScheme`) or per bootstrap replicate of the
items (`BootstrapScheme`); the columns are the units of every pair, in the same order for
every metric and criterion.

Pairs are grouped by their usable items (`pair_groups`); within a group, each system's unit
sums and scores are computed once per set of units and shared by the pairs it belongs to (see
`units` for why that keeps every pair's assignment independent of the others').
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from scoring.metrics import get_entry, get_metric

from .configs import Config
from .data import StudyData
from .stats import Rows
from .units import Assignments, ItemBootstrap, assignments_for_pair, column_sums, dedupe_columns

# Unit-level differences are compared at this many decimals (see `settle`).
TIE_DECIMALS = 10


@dataclass
class Observations:
    """Per configuration the metric differences, per criterion the humans' (sets, units)."""

    metric: dict[str, np.ndarray]
    human: dict[str, np.ndarray]

    @property
    def n_units(self) -> int:
        return int(next(iter(self.human.values())).shape[1])

    @property
    def n_sets(self) -> int:
        return int(next(iter(self.human.values())).shape[0])


@dataclass(frozen=True)
class Group:
    """System pairs (positions in `StudyData.pairs`) with the same usable items."""

    usable: np.ndarray
    pairs: list[int]


def pair_groups(data: StudyData) -> list[Group]:
    """The pairs grouped by their usable items, in the order of their first pair."""
    groups: dict[bytes, Group] = {}
    has = {s: data.has_output(s) for s in data.systems}
    for p, pair in enumerate(data.pairs):
        usable = np.flatnonzero(data.judged(pair) & has[pair[0]] & has[pair[1]])
        groups.setdefault(usable.tobytes(), Group(usable, [])).pairs.append(p)
    return list(groups.values())


class AssignmentScheme:
    """The paper's random assignments: `n_assignments` per pair, from a pool per group."""

    def __init__(self, n_assignments: int, seed: int):
        self.n_assignments, self.seed = n_assignments, seed

    def units(self, group: Group, index: int, unit_size: int) -> Assignments:
        pool = max(self.n_assignments, len(group.pairs))
        units = assignments_for_pair(group.usable.size, unit_size, pool, self.seed, index)
        if units is None:
            raise ValueError(f"a group of {group.usable.size} items has no unit of {unit_size}")
        return units

    def n_sets(self, unit_size: int) -> int:
        return 1 if unit_size == 1 else self.n_assignments

    def rows(self, k: int, units: Assignments) -> np.ndarray:
        """The permutations of the pool that the group's k-th pair uses, one per assignment
        (all different from the other pairs' in the same assignment)."""
        return (np.arange(self.n_sets(units.unit_size)) + k) % units.n_assignments


class BootstrapScheme:
    """Bootstrap replicates of the items, shared by every pair (`units.ItemBootstrap`)."""

    def __init__(self, bootstrap: ItemBootstrap):
        self.bootstrap = bootstrap

    def units(self, group: Group, index: int, unit_size: int) -> Assignments:
        return self.bootstrap.units(group.usable, group.usable.size // unit_size, unit_size)

    def n_sets(self, unit_size: int) -> int:
        return self.bootstrap.n_replicates

    def rows(self, k: int, units: Assignments) -> np.ndarray:
        return np.arange(units.n_assignments)


Scheme = AssignmentScheme | BootstrapScheme


def settle(values: np.ndarray) -> np.ndarray:
    """Values rounded to `TIE_DECIMALS` places, so that values equal in exact arithmetic tie.

    Ranks turn on ties, and human ratings are coarse: two units whose mean ratings are equal
    (sums of thirds, say) can differ in the last bit of a float sum, depending on the order of
    their items, and would be ranked apart by rounding noise."""
    return np.round(values, TIE_DECIMALS)


def sign(metric: str) -> float:
    return 1.0 if get_entry(metric).higher_is_better else -1.0


def observations(
    data: StudyData,
    stats: dict[str, Rows],
    configs: list[Config],
    scheme: Scheme,
    unit_size: int,
    threads: int = 1,
) -> Observations | None:
    """Metric and human differences of every unit of every set (None: too few items)."""
    groups = [
        (g, group) for g, group in enumerate(pair_groups(data)) if group.usable.size >= unit_size
    ]
    total = sum(len(group.pairs) * (group.usable.size // unit_size) for _, group in groups)
    if not total:
        return None
    n_sets = scheme.n_sets(unit_size)
    scorers = {c.key: get_metric(c.metric, **c.metric_options) for c in configs}
    metric = {c.key: np.empty((n_sets, total)) for c in configs}
    human = {c: np.empty((n_sets, total)) for c in data.criteria}
    start = 0
    for g, group in groups:
        units = scheme.units(group, g, unit_size)
        systems = sorted({s for p in group.pairs for s in data.pairs[p]})
        scores = _system_scores(stats, configs, scorers, units, systems, group, threads)
        humans = _human_sums(data, group, units)
        for k, p in enumerate(group.pairs):
            rows, cols = scheme.rows(k, units), slice(start, start + units.n_units)
            a, b = systems.index(data.pairs[p][0]), systems.index(data.pairs[p][1])
            for c in configs:
                both = scores[c.key][:, rows]
                metric[c.key][:, cols] = settle(sign(c.metric) * (both[a] - both[b]))
            for j, criterion in enumerate(data.criteria):
                human[criterion][:, cols] = settle(humans[k, j][rows] / unit_size)
            start += units.n_units
    return Observations(metric, human)


def _system_scores(
    stats: dict[str, Rows],
    configs: list[Config],
    scorers: dict[str, Any],
    units: Assignments,
    systems: list[str],
    group: Group,
    threads: int,
) -> dict[str, np.ndarray]:
    """Per configuration, every system's score on every unit: shape (systems, sets, units).

    One system at a time (its columns deduplicated, summed in one product), so that only one
    system's unit sums are held at once."""
    out = {c.key: np.empty((len(systems), units.n_assignments, units.n_units)) for c in configs}
    for k, system in enumerate(systems):
        matrix, where = dedupe_columns({c.key: stats[c.key][system] for c in configs})
        sums = column_sums(units, matrix[group.usable], threads)

        def score(cfg: Config, sums: np.ndarray = sums, where: dict = where) -> np.ndarray:
            picked = np.moveaxis(sums[where[cfg.key]], 0, -1)  # (sets, units, stats)
            return scorers[cfg.key].scores_from_stats(picked)

        for cfg, scores in zip(configs, thread_map(score, configs, threads), strict=True):
            out[cfg.key][k] = scores
    return out


def _human_sums(data: StudyData, group: Group, units: Assignments) -> np.ndarray:
    """Summed human differences per (pair of the group, criterion): (pairs, criteria, sets,
    units)."""
    columns = [
        np.asarray(data.human[criterion][data.pairs[p]], dtype=np.float64)[group.usable]
        for p in group.pairs
        for criterion in data.criteria
    ]
    sums = column_sums(units, np.column_stack(columns))
    return sums.reshape(len(group.pairs), len(data.criteria), *sums.shape[1:])


def thread_map(fn: Callable[[Any], Any], items: list, workers: int) -> list:
    """`[fn(x) for x in items]`, on `workers` threads: the work is numpy's, which lets go of the
    GIL on large arrays."""
    if workers <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(min(workers, len(items))) as pool:
        return list(pool.map(fn, items))
