"""The correlation study of Galley et al. (2015), sec. 5–6: Table 2 and Figure 2, and the
system-level table.

Observations are (metric difference, human difference) of a system pair (A, B) on a unit of M
items (`observe`); ρ and τ are computed per random assignment of items to units and averaged
over the assignments, which are the same for every metric. Intervals come from bootstrap
replicates of the items shared by all pairs (`correlation`); Table 2 is computed for every
criterion, Figure 2's sweeps for the primary (first) one. See `stats` for the per-item
statistics, `loo` for leaving a system's own response out of its references, `systems` for
the system-level correlations.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from .configs import (
    Config,
    StudyOptions,
    order_configs,
    table_configs,
    theta_configs,
    theta_points,
    unit_size_configs,
)
from .data import StudyData, StudyInputError
from .loo import apply_leave_one_out
from .observe import AssignmentScheme, BootstrapScheme, Observations, observations
from .segment_level import segment_level
from .stats import Rows, compute_stats
from .systems import system_level
from .table import Coefficients, coefficients, mean_rho, table_rows
from .units import ItemBootstrap

Progress = Callable[[int, int, str], None]
# Every pair gets at least this many units (the unit size is fitted down to it): a pair's
# correlation needs observations, and with one unit every assignment is the same.
MIN_UNITS = 10
# Fewer systems than this make a system-level correlation, and the pairs, too few to trust.
FEW_SYSTEMS = 5


def _check(data: StudyData) -> None:
    if not data.pairs and not data.system_scores:
        raise StudyInputError("the study needs at least one system pair")
    if not data.human:
        raise StudyInputError("the study needs at least one criterion of human scores")
    for criterion, by_pair in data.human.items():
        missing = [f"{a}–{b}" for a, b in data.pairs if (a, b) not in by_pair]
        if missing:
            raise StudyInputError(f"criterion {criterion!r} has no scores for {missing[0]}")


def fit_unit_size(data: StudyData, options: StudyOptions) -> tuple[int, str | None]:
    """`options.unit_size` when it gives every pair with items at least `MIN_UNITS` units;
    otherwise (a pilot, or M = 100 on 100 items: one unit, every assignment the same) the
    largest of `options.unit_sizes` (or n_min // MIN_UNITS) that does — 1 when some pair has
    fewer items than that. Returns the size and a note saying why it changed."""
    counts = [data.pair_items(pair).size for pair in data.pairs]
    present = [n for n in counts if n > 0]
    if not present:
        raise StudyInputError(
            "no system pair has an item judged in every criterion with outputs of both systems"
        )
    fewest = min(present)
    if fewest // options.unit_size >= MIN_UNITS:
        return options.unit_size, None
    cap = max(1, fewest // MIN_UNITS)
    size = max([s for s in options.unit_sizes if s <= cap] or [cap])
    return size, (
        f"M = {options.unit_size} would give a pair of {fewest} usable items "
        f"{fewest // options.unit_size} unit(s): units of {size} item(s) were used, the largest "
        f"size giving every pair at least {MIN_UNITS} units (or one unit per item)"
    )


def design_warnings(data: StudyData, unit_size: int | None) -> list[str]:
    """What makes this study's numbers weak, in words for its page: pairs with fewer than
    `MIN_UNITS` units even at the fitted size, fewer than `FEW_SYSTEMS` systems."""
    warnings = []
    if unit_size:
        thin = [
            (f"{a}–{b}", data.pair_items((a, b)).size // unit_size)
            for a, b in data.pairs
            if 0 < data.pair_items((a, b)).size // unit_size < MIN_UNITS
        ]
        if thin:
            name, units = min(thin, key=lambda t: t[1])
            warnings.append(
                f"{len(thin)} system pair(s) have fewer than {MIN_UNITS} units (the fewest: "
                f"{name}, {units}): their pair-level correlations rest on that many points"
                + (", and every assignment is the same" if units == 1 else "")
            )
    systems = {s for pair in data.pairs for s in pair} | {
        s for by_system in data.system_scores.values() for s in by_system
    }
    if 0 < len(systems) < FEW_SYSTEMS:
        warnings.append(
            f"only {len(systems)} systems: a system-level correlation rests on {len(systems)} "
            f"points and the pair level on {len(systems) * (len(systems) - 1) // 2} pairs; "
            "read them as indications, not measurements"
        )
    return warnings


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


def _statistics(
    data: StudyData, configs: list[Config], options: StudyOptions, clock: _Clock, result: dict
) -> dict[str, Rows]:
    def progress(done: int, total: int) -> None:
        if clock.progress:
            clock.progress(int(50 * done / total), 100, "Scoring outputs")

    stats, result["fallbacks"] = compute_stats(data, configs, options.processes, progress)
    if data.leave_one_out:
        result["leave_one_out"] = apply_leave_one_out(data, configs, stats, options.processes)
    clock.done = 50
    clock.lap("statistics")
    return stats


def run_study(data: StudyData, options: StudyOptions, progress: Progress | None = None) -> dict:
    """Table 2 per criterion, (if `options.sweeps`) Figure 2 for the primary criterion, the
    system-level table with WMT's meta-evaluation, and the segment level (`segment_level`),
    as a JSON-able dict (NaN where a value is undefined)."""
    _check(data)
    clock = _Clock(progress, total=100)
    result: dict = {"criterion": data.criteria[0], "leave_one_out": None, "fallbacks": {}}
    notes = list(data.notes)
    table = table_configs(options)
    thetas = theta_configs(options) if options.sweeps else []
    orders = order_configs(options) if options.sweeps else []
    everything = list({c.key: c for c in table + thetas + orders}.values())
    if data.pairs:
        unit_size, note = fit_unit_size(data, options)
        notes += [note] if note else []
        options = dataclasses.replace(options, unit_size=unit_size)
    stats = _statistics(data, everything, options, clock, result)
    result["systems"] = system_level(data, stats, options, notes)
    clock.lap("systems")
    # Up to 10 points of progress for the segment level, shared by the criteria.
    share = max(1, 10 // max(1, len(data.system_scores)))
    result["segments"] = segment_level(
        data, stats, options, result["systems"], notes, lambda m: clock.step(m, share)
    )
    clock.lap("segments")
    if data.pairs:
        _pair_level(data, stats, options, (table, everything, orders), clock, result)
        if data.external:
            names = ", ".join(e.head["label"] for e in data.external)
            notes.append(
                f"{names}: left out of the pair level (Table 2) and the sweeps, which sum each "
                "unit's corpus statistics; uploaded per-response scores have none"
            )
    result["notes"] = notes
    result["warnings"] = design_warnings(data, options.unit_size if data.pairs else None)
    result["timings"] = clock.timings
    return result


def _pair_level(
    data: StudyData,
    stats: dict[str, Rows],
    options: StudyOptions,
    configs: tuple[list[Config], list[Config], list[Config]],
    clock: _Clock,
    result: dict,
) -> None:
    table, everything, orders = configs
    size, threads = options.unit_size, options.threads
    scheme = AssignmentScheme(options.assignments, options.seed)
    main = observations(data, stats, everything, scheme, size, threads)
    bootstrap = ItemBootstrap(len(data.item_ids), options.bootstrap, options.seed)
    boot = observations(data, stats, table, BootstrapScheme(bootstrap), size, threads)
    if main is None or boot is None:  # fit_unit_size leaves at least one pair with units
        raise StudyInputError(f"no system pair has {size} usable items")
    clock.lap("observations")
    clock.step("Correlations", 10)
    keys = [c.key for c in table]
    others = [k for k in main.metric if k not in set(keys)]
    main_coefs = coefficients(main, keys, with_tau=True, threads=threads)
    main_coefs.update(coefficients(main, others, with_tau=False, threads=threads))
    boot_coefs = coefficients(boot, keys, with_tau=True, threads=threads)
    by_criterion = {
        criterion: {
            "table": table_rows(table, main_coefs, boot_coefs, criterion, options.baseline),
            "n_units": main.n_units,
        }
        for criterion in data.criteria
    }
    result.update(
        unit_size=size,
        n_units=main.n_units,
        n_assignments=main.n_sets,
        n_replicates=boot.n_sets,
        pairs=[{"a": a, "b": b, "items": int(data.pair_items((a, b)).size)} for a, b in data.pairs],
        table=by_criterion[data.criteria[0]]["table"],
        criteria=by_criterion,
    )
    clock.lap("table")
    clock.step("Sweeps", 10)
    if options.sweeps:
        result["sweeps"] = _sweeps(data, stats, options, main, main_coefs, orders, clock)
    clock.lap("sweeps")


def _sweeps(
    data: StudyData,
    stats: dict[str, Rows],
    options: StudyOptions,
    main: Observations,
    coefs: dict[str, Coefficients],
    orders: list[Config],
    clock: _Clock,
) -> dict[str, dict[str, list[list]]]:
    """Figure 2 for the primary criterion: ρ against θ, the n-gram order and the unit size."""
    primary = data.criteria[0]
    return {
        "theta": _series(
            [(c.metric, t, mean_rho(coefs[c.key], primary)) for t, c in theta_points(options)]
        ),
        "order": _series([(c.metric, c.order, mean_rho(coefs[c.key], primary)) for c in orders]),
        "unit_size": _unit_size_sweep(data, stats, options, coefs, clock),
    }


def _series(points: list[tuple[str, float | int | None, float]]) -> dict[str, list[list]]:
    out: dict[str, list[list]] = {}
    for metric, x, rho in points:
        out.setdefault(metric, []).append([x, rho])
    return out


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
    main: dict[str, Coefficients],
    clock: _Clock,
) -> dict[str, list[list]]:
    configs = unit_size_configs(options)
    keys = [c.key for c in configs]
    sizes = sorted({*options.unit_sizes} - {options.unit_size})
    by_size = {options.unit_size: main}
    for size in sizes:
        scheme = AssignmentScheme(sweep_assignments(options, size), options.seed)
        obs = observations(data, stats, configs, scheme, size, options.threads)
        if obs is not None and obs.n_units >= 3:
            by_size[size] = coefficients(obs, keys, with_tau=False, threads=options.threads)
        clock.step(f"Unit size {size}", max(1, 18 // max(len(sizes), 1)))
    primary = data.criteria[0]
    return _series(
        [
            (c.metric, size, mean_rho(by_size[size][c.key], primary))
            for size in sorted(by_size)
            for c in configs
        ]
    )


__all__ = ["Observations", "StudyInputError", "fit_unit_size", "observations", "run_study"]
