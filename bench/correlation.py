"""The full correlation study (Table 2 over every registered metric + Figure 2's three sweeps)
on synthetic data of the paper's size: 7 systems, 12 system pairs × 2,000 items, 11 rated
references per item, M = 100, 1,000 assignments.

    .venv/bin/python bench/correlation.py [--items 2000] [--processes 2]

Prints the wall time of each stage and, as a reference point in the same process, the time of
scipy's spearmanr + kendalltau on the Table 2 observations one assignment at a time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring.study.analysis.configs import StudyOptions, table_configs
from scoring.study.analysis.engine import observations, run_study
from scoring.study.analysis.stats import compute_stats
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--processes", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    data = synthetic_study(SyntheticSpec(n_items=args.items))
    options = StudyOptions(processes=args.processes, threads=args.processes)
    print(
        f"{len(data.pairs)} pairs × {args.items} items, {options.assignments} assignments, "
        f"M = {options.unit_size}, {args.processes} process(es) and thread(s), "
        f"load {os.getloadavg()[0]:.2f}"
    )
    started = time.perf_counter()
    result = run_study(data, options)
    total = time.perf_counter() - started
    print(f"full study: {total:.1f} s  {result['timings']}")
    configs = table_configs(options)
    best = max(result["table"], key=lambda r: r["rho"]["value"])
    print(
        f"table rows: {len(result['table'])}, units per assignment: {result['n_units']}, "
        f"best ρ: {best['key']} {best['rho']['value']:.3f}"
    )
    stats, _ = compute_stats(data, configs[:3], 1)
    obs = observations(data, stats, configs[:3], options, options.unit_size)
    m, q = obs.metric[configs[0].key], obs.human
    t = time.perf_counter()
    for a in range(len(q)):
        sps.spearmanr(m[a], q[a])
        sps.kendalltau(m[a], q[a])
    scipy_s = time.perf_counter() - t
    from scoring.study.analysis.correlation import kendall_rows, spearman_rows

    t = time.perf_counter()
    spearman_rows(m, q)
    kendall_rows(m, q)
    ours = time.perf_counter() - t
    print(
        f"ρ+τ of one configuration over {len(q)} assignments: scipy loop {scipy_s:.2f} s, "
        f"vectorised {ours:.2f} s ({scipy_s / ours:.1f}×)"
    )
    assert np.isfinite(best["rho"]["value"])


if __name__ == "__main__":
    main()
