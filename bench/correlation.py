"""The full correlation study (Table 2 over every registered metric + Figure 2's three sweeps +
the system-level table) on synthetic data, with the bootstrap intervals.

Shapes:
- ``paper`` (default): 7 systems, 12 system pairs × 2,000 items, one criterion, 11 rated
  references per item, M = 100, 1,000 assignments and 1,000 bootstrap replicates;
- ``wide``: a published human evaluation's shape — 10 systems, all 45 pairs × 1,000 items, two
  criteria (relevance, informativeness), per-system scores for the system-level table;
  ``--leave-one-out`` adds an 11th system copied from the references and leaves the copies out;
- ``dstc7``: DSTC7 Task 2 as shipped — the wide shape with 10–15-word responses and heavy-tailed
  references per item (lognormal counts: most items tens, 35,161 in all, 1,009 for the
  largest item, all scaled with ``--items``), run with one worker's defaults (1 process,
  2 threads). ``--per-metric`` first times each metric's statistics alone, from a cold token
  cache (the full study shares that cache across metrics).

    .venv/bin/python bench/correlation.py [--shape wide] [--items N] [--processes 2]
    .venv/bin/python bench/correlation.py --shape dstc7 --processes 1 --threads 2 --per-metric

Prints the wall time of each stage, the process's peak resident memory and the machine's load,
and, as a reference point, scipy's spearmanr + kendalltau on the Table 2 observations one
assignment at a time against the vectorised versions.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring.metrics.tokenizers import clear_token_cache
from scoring.study.analysis.configs import (
    StudyOptions,
    order_configs,
    table_configs,
    theta_configs,
)
from scoring.study.analysis.correlation import kendall_rows, spearman_rows
from scoring.study.analysis.engine import run_study
from scoring.study.analysis.observe import AssignmentScheme, observations
from scoring.study.analysis.stats import compute_stats
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study

SHAPES = {
    "paper": {"n_items": 2000},
    "wide": {
        "n_items": 1000,
        "qualities": tuple(round(0.2 + 0.075 * k, 3) for k in range(10)),
        "n_pairs": 45,
        "criteria": ("relevance", "informativeness"),
    },
}
SHAPES["dstc7"] = {**SHAPES["wide"], "output_words": (10, 16)}
# DSTC7 Task 2's test set as shipped: 1,000 contexts, 35,161 references, 1,009 for one item.
DSTC7_ITEMS, DSTC7_REFS, DSTC7_LARGEST = 1000, 35_161, 1009


def heavy_tailed_counts(n_items: int, seed: int = 3) -> tuple[int, ...]:
    """References per item besides the original: lognormal (most items tens), rescaled so that
    the largest item and the total (originals included) are DSTC7's, scaled to `n_items`."""
    scale = n_items / DSTC7_ITEMS
    largest = max(1, round(DSTC7_LARGEST * scale))
    rest_total = round(DSTC7_REFS * scale) - n_items - (largest - 1)
    draws = np.random.default_rng(seed).lognormal(mean=0.0, sigma=1.0, size=n_items - 1)
    rest = np.maximum(0, np.rint(draws / draws.sum() * rest_total).astype(int))
    rest = np.minimum(rest, largest - 1)
    return (largest - 1, *map(int, rest))


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", choices=sorted(SHAPES), default="paper")
    parser.add_argument("--items", type=int)
    parser.add_argument("--processes", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--threads", type=int)
    parser.add_argument("--no-reference", action="store_true", help="skip the scipy comparison")
    parser.add_argument(
        "--per-metric", action="store_true", help="time each metric's statistics alone first"
    )
    parser.add_argument(
        "--leave-one-out",
        action="store_true",
        help="add a system copied from the references and leave its copies out",
    )
    args = parser.parse_args()
    spec = dict(SHAPES[args.shape])
    if args.items:
        spec["n_items"] = args.items
    if args.shape == "dstc7":
        spec["ref_counts"] = heavy_tailed_counts(spec["n_items"])
    data = synthetic_study(SyntheticSpec(**spec, copy_system=args.leave_one_out))
    data.leave_one_out = args.leave_one_out
    threads = args.threads or args.processes
    options = StudyOptions(processes=args.processes, threads=threads)
    counts = [len(r) for r in data.refs]
    print(
        f"{args.shape}: {len(data.systems)} systems, {len(data.pairs)} pairs × "
        f"{spec['n_items']} items, {sum(counts):,} references (median {np.median(counts):g}, "
        f"largest {max(counts):,}), criteria {', '.join(data.criteria)}; "
        f"{options.assignments} assignments, {options.bootstrap} bootstrap replicates, "
        f"M = {options.unit_size}; {args.processes} process(es), {threads} thread(s); "
        f"load before {_load()}"
    )
    if args.per_metric:
        _per_metric(data, options)
    clear_token_cache()
    started = time.perf_counter()
    result = run_study(data, options)
    total = time.perf_counter() - started
    print(f"full study: {total:.1f} s  stages {result['timings']}")
    print(f"peak resident memory: {_peak_mb():.0f} MB; load after {_load()}")
    best = max(result["table"], key=lambda r: r["rho"]["value"])
    rho = best["rho"]
    print(
        f"table rows: {len(result['table'])} × {len(result['criteria'])} criteria, units per "
        f"assignment: {result['n_units']}, best ρ: {best['key']} {rho['value']:.3f} "
        f"[{rho['low']:.3f}, {rho['high']:.3f}]; system-level criteria: {len(result['systems'])}"
    )
    assert np.isfinite(rho["value"])
    if not args.no_reference:
        _reference(data, options)


def _per_metric(data, options: StudyOptions) -> None:
    """Each metric's statistics for every configuration a default study computes for it."""
    everything = table_configs(options) + theta_configs(options) + order_configs(options)
    unique = list({c.key: c for c in everything}.values())
    times = []
    for metric in options.metric_names:
        configs = [c for c in unique if c.metric == metric]
        clear_token_cache()
        started = time.perf_counter()
        compute_stats(data, configs, options.processes)
        times.append(f"{metric} {time.perf_counter() - started:.2f}")
    print(f"statistics per metric, s (each alone, cold token cache): {', '.join(times)}")


def _reference(data, options: StudyOptions) -> None:
    configs = table_configs(options)[:3]
    stats, _ = compute_stats(data, configs, 1)
    scheme = AssignmentScheme(options.assignments, options.seed)
    obs = observations(data, stats, configs, scheme, options.unit_size)
    if obs is None:
        print(f"no scipy comparison: no pair has {options.unit_size} items with references")
        return
    m, q = obs.metric[configs[0].key], obs.human[data.criteria[0]]
    t = time.perf_counter()
    for a in range(len(q)):
        sps.spearmanr(m[a], q[a])
        sps.kendalltau(m[a], q[a])
    scipy_s = time.perf_counter() - t
    t = time.perf_counter()
    spearman_rows(m, q)
    kendall_rows(m, q)
    ours = time.perf_counter() - t
    print(
        f"ρ+τ of one configuration over {len(q)} assignments: scipy loop {scipy_s:.2f} s, "
        f"vectorised {ours:.2f} s ({scipy_s / ours:.1f}×)"
    )


if __name__ == "__main__":
    main()
