"""Segment-level correlations and the meta-evaluation statistics on a WMT-sized synthetic set:
by default 10 systems × 10,000 items (100,000 judged responses), 1,000 bootstrap draws,
permutations and PERM-BOTH draws.

    .venv/bin/python bench/metaeval.py [--systems 10] [--items 10000] [--draws 1000]
        [--kendall-draws 50]
    .venv/bin/python bench/metaeval.py --study [--systems 10] [--items 10000] [--processes 2]

`--study` times what a default study adds on a synthetic study of that size (every metric):
the segment level (correlations with intervals, acc_eq, SPA, both levels' clusters) and the
system level with its pairwise accuracies, on statistics computed beforehand (not timed).

Prints each statistic's wall and CPU time (the machine's load beside them: CPU time is the
steadier number on a shared machine). Kendall's τ without grouping costs an O(n log n) scipy
call per draw (see `segments`): it is timed on `--kendall-draws` draws and scaled to
`--draws`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring.study.analysis import segment_level as levels
from scoring.study.analysis.configs import StudyOptions, system_configs
from scoring.study.analysis.metaeval import (
    item_grouped_tie_calibrated_accuracy,
    soft_pairwise_accuracy,
)
from scoring.study.analysis.segments import segment_correlations
from scoring.study.analysis.significance import correlation_method, perm_both
from scoring.study.analysis.stats import compute_stats
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study
from scoring.study.analysis.systems import system_level


def _timed(label: str, fn: Callable[[], Any], scale: float = 1.0) -> Any:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    scaled = f" (× {scale:g} → {wall * scale:.1f} s)" if scale != 1 else ""
    print(f"{label:<58} {wall:6.2f} s wall {cpu:6.2f} s CPU{scaled}  load {load}")
    return result


def _world(systems: int, items: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Human scores on a 0–100 scale in steps of 1/3 (three raters' mean, many ties), two
    metrics that are noisy continuous copies, and 2% of the cells missing."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(systems, 1)) + rng.normal(size=(1, items))
    human = np.clip(
        np.round((50 + 15 * (quality + rng.normal(size=quality.shape))) * 3) / 3, 0, 100
    )
    a = quality + 0.8 * rng.normal(size=quality.shape)
    b = quality + 1.2 * rng.normal(size=quality.shape)
    human[rng.random(human.shape) < 0.02] = np.nan
    return human, a, b


def study(systems: int, items: int, processes: int) -> None:
    """A default study's new parts (see the module docstring): the segment level alone (each
    metric's correlations with intervals and acc_eq; the segment-level clusters), then all
    of `segment_level` (those, plus SPA and the system-level clusters)."""
    qualities = tuple(round(0.2 + 0.7 * k / max(systems - 1, 1), 3) for k in range(systems))
    data = synthetic_study(SyntheticSpec(n_items=items, qualities=qualities, n_pairs=0))
    options = StudyOptions(processes=processes)
    configs = system_configs(options)
    stats, _ = _timed(
        "statistics (not part of the new work)",
        lambda: compute_stats(data, configs, processes, None),
    )
    criterion = data.criteria[0]
    names = sorted(data.outputs)
    human = np.vstack([data.system_scores[criterion][s] for s in names])
    print(f"{systems} systems × {items} items: {int(np.isfinite(human).sum())} responses")
    notes: list[str] = []
    by_level = _timed(
        "system level (with pairwise accuracy and acc_eq)",
        lambda: system_level(data, stats, options, notes),
    )
    wall, cpu = time.perf_counter(), time.process_time()
    grids = {c.key: levels.response_grid(stats, c, names, data) for c in configs}
    for cfg in configs:
        grid = grids[cfg.key]
        found = _timed(
            f"  segment correlations + acc_eq, {cfg.label}",
            lambda g=grid: (
                levels.correlations_of(g, human, options),
                item_grouped_tie_calibrated_accuracy(g, human),
            ),
        )[0]
        draws = {g: [found[g][s]["draws"] for s in ("pearson", "spearman", "kendall")]
                 for g in ("none", "item")}  # fmt: skip
        print(f"      draws (pearson, spearman, kendall): {draws}")
    clusters = _timed(
        "  segment-level clusters (PERM-BOTH, Pearson, all responses)",
        lambda: levels._clusters(human, grids, "none", options.seed),
    )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{'segment level alone (grids, the above)':<58} {wall:6.2f} s wall {cpu:6.2f} s CPU")
    print(f"    clusters ({clusters['draws']} draws): {_ranked(clusters)}")
    found = _timed(
        "segment_level: the above + SPA + system-level clusters",
        lambda: levels.segment_level(data, stats, options, by_level, notes),
    )
    print(f"    system clusters: {_ranked(by_level[criterion]['clusters'])}")
    for note in notes:
        print(f"    note: {note}")


def _ranked(clusters: dict) -> str:
    return ", ".join(f"{r['key']}:{r['rank']}" for r in clusters["ranks"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--kendall-draws", type=int, default=50)
    parser.add_argument("--study", action="store_true")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    if args.study:
        study(args.systems, args.items, args.processes)
        return
    human, a, b = _world(args.systems, args.items)
    n = int(np.isfinite(human).sum())
    print(f"{args.systems} systems × {args.items} items: {n} judged responses, {args.draws} draws")
    d = args.draws
    for statistics, groupings in [
        (("pearson", "spearman"), ("none",)),
        (("pearson", "spearman", "kendall"), ("item",)),
    ]:
        label = f"segment {'+'.join(statistics)}, grouping {groupings[0]}"
        found = _timed(
            label,
            lambda s=statistics, g=groupings: segment_correlations(
                a, human, statistics=s, groupings=g, draws=d
            ),
        )
        for r in found:
            print(
                f"    {r.statistic:<9}{r.value:.4f} [{r.low:.4f}, {r.high:.4f}]"
                f" dropped {r.n_constant} constant, {r.n_too_few} with one response"
            )
    k = min(args.kendall_draws, d)
    _timed(
        f"segment kendall, grouping none ({k} draws)",
        lambda: segment_correlations(
            a, human, statistics=("kendall",), groupings=("none",), draws=k
        ),
        scale=d / k,
    )
    _timed("acc_eq item-grouped", lambda: item_grouped_tie_calibrated_accuracy(a, human))
    spa = _timed(
        f"SPA ({d} permutations)", lambda: soft_pairwise_accuracy(a, human, permutations=d)
    )
    print(f"    SPA {spa.value:.4f} over {spa.n_pairs} pairs")
    for level in ("system", "none", "item"):
        fn = correlation_method(level, "pearson")
        draws = d if level != "item" else max(1, d // 10)
        result = _timed(
            f"PERM-BOTH {level} pearson ({draws} draws)",
            lambda f=fn, n=draws: perm_both(human, a, b, correlation_fn=f, draws=n),
            scale=d / draws,
        )
        print(f"    Δ {result.delta:.4f}, p {result.p_value:.3f}")


if __name__ == "__main__":
    main()
