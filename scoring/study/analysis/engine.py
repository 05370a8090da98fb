"""The correlation study of Galley et al. (2015), sec. 5–6: Table 2 and Figure 2.

Observations are (metric difference, human difference) of a system pair (A, B) on a unit of M
items; ρ and τ are computed per random assignment of items to units and averaged over the
assignments, which are the same for every metric. See `correlation` for the intervals and the
significance test, `units` for the assignments, `stats` for the per-item statistics.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from scoring.metrics import get_entry, get_metric

from .configs import (
    Config,
    StudyOptions,
    order_configs,
    table_configs,
    theta_configs,
    theta_points,
    unit_size_configs,
)
from .correlation import (
    KENDALL_Z_VAR,
    SPEARMAN_Z_VAR,
    PairedBootstrap,
    PairOrder,
    average_ranks,
    kendall_rows,
    shared_pair_order,
    spearman_rows,
    summarize,
)
from .data import StudyData
from .stats import Rows, compute_stats
from .units import Assignments, assignments_for_pair, column_sums, dedupe_columns

Progress = Callable[[int, int, str], None]
# Unit-level differences are compared at this many decimals (see `_settle`).
TIE_DECIMALS = 10


class StudyInputError(ValueError):
    """The data cannot support the study (no pair with enough judged items, …)."""


@dataclass
class Observations:
    """Per configuration the metric differences (assignments, units), and the humans'."""

    metric: dict[str, np.ndarray]
    human: np.ndarray

    @property
    def n_units(self) -> int:
        return int(self.human.shape[1])


def _sign(metric: str) -> float:
    return 1.0 if get_entry(metric).higher_is_better else -1.0


def observations(
    data: StudyData,
    stats: dict[str, Rows],
    configs: list[Config],
    options: StudyOptions,
    unit_size: int,
    n_assignments: int | None = None,
) -> Observations | None:
    """Metric and human differences of every unit of every assignment (None: too few items)."""
    n_assignments = n_assignments or options.assignments
    per_system = {}
    for system in data.systems:
        per_system[system] = dedupe_columns({c.key: stats[c.key][system] for c in configs})
    metric_parts: dict[str, list[np.ndarray]] = {c.key: [] for c in configs}
    human_parts = []
    scorers = {c.key: get_metric(c.metric, **c.metric_options) for c in configs}
    for p, pair in enumerate(data.pairs):
        idx = data.pair_items(pair)
        units = assignments_for_pair(len(idx), unit_size, n_assignments, options.seed, p)
        if units is None:
            continue
        (xa, where_a), (xb, where_b) = per_system[pair[0]], per_system[pair[1]]
        sums = column_sums(units, np.hstack([xa[idx], xb[idx]]), options.threads)
        human = np.asarray(data.human[pair], dtype=np.float64)[idx]
        human_parts.append(_settle(column_sums(units, human[:, None])[0] / unit_size))
        columns = {c.key: (where_a[c.key], xa.shape[1] + where_b[c.key]) for c in configs}
        diffs = _map(partial(_difference, scorers, sums, columns), configs, options.threads)
        for c, diff in zip(configs, diffs, strict=True):
            metric_parts[c.key].append(diff)
    if not human_parts:
        return None
    return Observations({k: _stack(v) for k, v in metric_parts.items()}, _stack(human_parts))


def _settle(values: np.ndarray) -> np.ndarray:
    """Values rounded to `TIE_DECIMALS` places, so that values equal in exact arithmetic tie.

    Ranks turn on ties, and human ratings are coarse: two units whose mean ratings are equal
    (sums of thirds, say) can differ in the last bit of a float sum, depending on the order of
    their items, and would be ranked apart by rounding noise."""
    return np.round(values, TIE_DECIMALS)


def _difference(
    scorers: dict[str, Any],
    sums: np.ndarray,
    columns: dict[str, tuple[np.ndarray, np.ndarray]],
    cfg: Config,
) -> np.ndarray:
    """metric(A) − metric(B) per unit (sign-flipped for lower-is-better metrics) from the
    column sums of both systems; both are scored in one call, statistics on the last axis."""
    cols_a, cols_b = columns[cfg.key]
    both = np.stack([sums[cols_a], sums[cols_b]])
    scores = scorers[cfg.key].scores_from_stats(np.moveaxis(both, 1, -1))
    return _settle(_sign(cfg.metric) * (scores[0] - scores[1]))


def _stack(parts: list[np.ndarray]) -> np.ndarray:
    # M = 1 has a single assignment; other sizes have `options.assignments` for every pair.
    n = min(p.shape[0] for p in parts)
    return np.concatenate([p[:n] for p in parts], axis=1)


def _row(
    cfg: Config,
    obs: Observations,
    q_ranks: np.ndarray,
    q_order: PairOrder | None = None,
    with_tau: bool = False,
) -> dict:
    m = obs.metric[cfg.key]
    rho = summarize(spearman_rows(m, obs.human, q_ranks), obs.n_units, SPEARMAN_Z_VAR)
    row = {
        "key": cfg.key, "metric": cfg.metric, "display": get_entry(cfg.metric).display_name,
        "refs": cfg.refs, "refset": cfg.refset, "theta": cfg.theta, "order": cfg.order,
        "rho": rho.as_dict(),
    }  # fmt: skip
    if with_tau:
        tau = kendall_rows(m, obs.human, q_order)
        row["tau"] = summarize(tau, obs.n_units, KENDALL_Z_VAR).as_dict()
    return row


def _table(options: StudyOptions, configs: list[Config], obs: Observations) -> list[dict]:
    q_ranks = average_ranks(obs.human)
    q_order = shared_pair_order(obs.human)
    rows = _map(lambda c: _row(c, obs, q_ranks, q_order, with_tau=True), configs, options.threads)
    by_metric = [r for r in rows if r["metric"] == options.baseline]
    if by_metric:
        best = max(by_metric, key=lambda r: np.nan_to_num(r["rho"]["value"], nan=-2))
        bootstrap = PairedBootstrap(obs.metric[best["key"]], obs.human, options.seed)
        others = [row for row in rows if row["key"] != best["key"]]
        diffs = _map(lambda r: bootstrap.difference(obs.metric[r["key"]]), others, options.threads)
        for row, diff in zip(others, diffs, strict=True):
            row["vs_baseline"] = {"baseline": best["key"], **diff.as_dict()}
    return rows


def _map(fn: Callable[[Any], Any], items: list, workers: int) -> list:
    """`[fn(x) for x in items]`, on `workers` threads: the work is numpy's, which lets go of the
    GIL on large arrays."""
    if workers <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(min(workers, len(items))) as pool:
        return list(pool.map(fn, items))


def _series(rows: list[dict], x_field: str) -> dict[str, list[list[float]]]:
    out: dict[str, list[list[float]]] = {}
    for row in rows:
        out.setdefault(row["metric"], []).append([row[x_field], row["rho"]["value"]])
    return out


class _Clock:
    def __init__(self, progress: Progress | None, total: int):
        self.progress, self.total, self.done = progress, total, 0
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}

    def step(self, message: str, n: int = 1) -> None:
        self.done += n
        if self.progress:
            self.progress(min(self.done, self.total), self.total, message)

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = round(now - self.started - sum(self.timings.values()), 3)


def run_study(data: StudyData, options: StudyOptions, progress: Progress | None = None) -> dict:
    """Table 2 and (if `options.sweeps`) Figure 2, as a JSON-able dict."""
    if not data.pairs:
        raise StudyInputError("the study needs at least one system pair")
    table = table_configs(options)
    thetas = theta_configs(options) if options.sweeps else []
    orders = order_configs(options) if options.sweeps else []
    sizes = sorted({*options.unit_sizes} - {options.unit_size}) if options.sweeps else []
    everything = table + thetas + orders
    clock = _Clock(progress, total=100)
    stats, fallbacks = compute_stats(
        data,
        everything,
        options.processes,
        lambda d, t: clock.progress and clock.progress(int(60 * d / t), 100, "Scoring outputs"),
    )
    clock.done = 60
    clock.lap("statistics")
    main_configs = list({c.key: c for c in everything}.values())
    obs = observations(data, stats, main_configs, options, options.unit_size)
    if obs is None:
        raise StudyInputError(
            f"no system pair has {options.unit_size} items judged with outputs of both systems"
        )
    clock.step("Correlations", 10)
    result: dict = {
        "n_units": obs.n_units,
        "n_assignments": int(obs.human.shape[0]),
        "pairs": [{"a": a, "b": b, "items": len(data.pair_items((a, b)))} for a, b in data.pairs],
        "fallbacks": fallbacks,
        "table": _table(options, table, obs),
    }
    clock.lap("table")
    clock.step("Sweeps", 10)
    if options.sweeps:
        q_ranks = average_ranks(obs.human)
        result["sweeps"] = {
            "theta": _series(
                [dict(_row(c, obs, q_ranks), theta=t) for t, c in theta_points(options)],
                "theta",
            ),
            "order": _series([_row(c, obs, q_ranks) for c in orders], "order"),
            "unit_size": _unit_size_sweep(data, stats, options, obs, sizes, clock),
        }
    clock.lap("sweeps")
    result["timings"] = clock.timings
    result["notes"] = list(data.notes)
    return result


def sweep_assignments(options: StudyOptions, size: int) -> int:
    """Assignments for a unit size of the sweep: as many observations as the main study has
    (A · M / M₀ assignments, at least 50). Smaller units mean more units per assignment, whose
    average varies less from one assignment to the next, so fewer assignments suffice."""
    scaled = -(-options.assignments * size // options.unit_size)
    return int(min(options.assignments, max(50, scaled)))


def _unit_size_sweep(
    data: StudyData,
    stats: dict[str, Rows],
    options: StudyOptions,
    main: Observations,
    sizes: list[int],
    clock: _Clock,
) -> dict[str, list[list[float]]]:
    configs = unit_size_configs(options)
    points: dict[int, list[dict]] = {}
    q_ranks = average_ranks(main.human)
    points[options.unit_size] = [_row(c, main, q_ranks) for c in configs]
    for size in sizes:
        obs = observations(data, stats, configs, options, size, sweep_assignments(options, size))
        if obs is not None and obs.n_units >= 3:
            ranks = average_ranks(obs.human)
            points[size] = [_row(c, obs, ranks) for c in configs]
        clock.step(f"Unit size {size}", max(1, 18 // max(len(sizes), 1)))
    rows = [dict(r, unit_size=size) for size in sorted(points) for r in points[size]]
    return _series(rows, "unit_size")


__all__ = ["Assignments", "Observations", "StudyInputError", "observations", "run_study"]
