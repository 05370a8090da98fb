"""The correlation study of Galley et al. (2015), sec. 5–6: Table 2 and Figure 2.

Observations are (metric difference, human difference) of a system pair (A, B) on a unit of M
items; ρ and τ are computed per random assignment of items to units and averaged over the
assignments, which are the same for every metric. See `correlation` for the intervals and the
significance test, `units` for the assignments, `stats` for the per-item statistics.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

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
    KENDALL_PAIRWISE_MAX,
    KENDALL_Z_VAR,
    SPEARMAN_Z_VAR,
    average_ranks,
    kendall_rows,
    pair_order,
    paired_bootstrap_difference,
    spearman_rows,
    summarize,
)
from .data import StudyData
from .stats import Rows, compute_stats
from .units import Assignments, assignments_for_pair, dedupe_columns, unit_sums

Progress = Callable[[int, int, str], None]


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
        sums = unit_sums(units, np.hstack([xa[idx], xb[idx]]))
        human = np.asarray(data.human[pair], dtype=np.float64)[idx]
        human_parts.append(unit_sums(units, human[:, None])[..., 0] / unit_size)
        for c in configs:
            sa = scorers[c.key].scores_from_stats(sums[..., where_a[c.key]])
            sb = scorers[c.key].scores_from_stats(sums[..., xa.shape[1] + where_b[c.key]])
            metric_parts[c.key].append(_sign(c.metric) * (sa - sb))
    if not human_parts:
        return None
    return Observations({k: _stack(v) for k, v in metric_parts.items()}, _stack(human_parts))


def _stack(parts: list[np.ndarray]) -> np.ndarray:
    # M = 1 has a single assignment; other sizes have `options.assignments` for every pair.
    n = min(p.shape[0] for p in parts)
    return np.concatenate([p[:n] for p in parts], axis=1)


def _row(
    cfg: Config,
    obs: Observations,
    q_ranks: np.ndarray,
    q_order: tuple[np.ndarray, np.ndarray] | None,
) -> dict:
    m = obs.metric[cfg.key]
    rho = summarize(spearman_rows(m, obs.human, q_ranks), obs.n_units, SPEARMAN_Z_VAR)
    row = {
        "key": cfg.key, "metric": cfg.metric, "display": get_entry(cfg.metric).display_name,
        "refs": cfg.refs, "refset": cfg.refset, "theta": cfg.theta, "order": cfg.order,
        "rho": rho.as_dict(),
    }  # fmt: skip
    if q_order is not None:
        tau = kendall_rows(m, obs.human, q_order if q_order[0].size else None)
        row["tau"] = summarize(tau, obs.n_units, KENDALL_Z_VAR).as_dict()
    return row


def _table(options: StudyOptions, configs: list[Config], obs: Observations) -> list[dict]:
    q_ranks = average_ranks(obs.human)
    # Kendall's pairs of one row are n² / 2; past the pairwise limit signs are not kept.
    small = obs.n_units <= KENDALL_PAIRWISE_MAX
    none = np.zeros(0, dtype=bool)
    q_order = pair_order(obs.human) if small else (none, none)
    rows = [_row(c, obs, q_ranks, q_order) for c in configs]
    by_metric = [r for r in rows if r["metric"] == options.baseline]
    if by_metric:
        best = max(by_metric, key=lambda r: np.nan_to_num(r["rho"]["value"], nan=-2))
        for row in rows:
            if row["key"] != best["key"]:
                diff = paired_bootstrap_difference(
                    obs.metric[row["key"]], obs.metric[best["key"]], obs.human, options.seed
                )
                row["vs_baseline"] = {"baseline": best["key"], **diff.as_dict()}
    return rows


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
        data, everything, options.processes,
        lambda d, t: clock.progress and clock.progress(int(60 * d / t), 100, "Scoring outputs"),
    )  # fmt: skip
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
                [dict(_row(c, obs, q_ranks, None), theta=t) for t, c in theta_points(options)],
                "theta",
            ),
            "order": _series([_row(c, obs, q_ranks, None) for c in orders], "order"),
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
    points[options.unit_size] = [_row(c, main, q_ranks, None) for c in configs]
    for size in sizes:
        obs = observations(data, stats, configs, options, size, sweep_assignments(options, size))
        if obs is not None and obs.n_units >= 3:
            ranks = average_ranks(obs.human)
            points[size] = [_row(c, obs, ranks, None) for c in configs]
        clock.step(f"Unit size {size}", max(1, 18 // max(len(sizes), 1)))
    rows = [dict(r, unit_size=size) for size in sorted(points) for r in points[size]]
    return _series(rows, "unit_size")


__all__ = ["Assignments", "Observations", "StudyInputError", "observations", "run_study"]
