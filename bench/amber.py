"""AMBER's statistics: the per-pair reference path against the numpy batch, on the same pairs.

Synthetic data like scoring/study/analysis/synthetic.py: per item a pool of 20 words ("w1234", so
that variant 4 splits every word), hypothesis and reference of 5–12 words drawn from it. Both
variants (1 and 4) are computed, and the rows are checked to be equal.

Usage: ``python bench/amber.py [--pairs 30000] [--seed 0]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.metrics.amber_batch import amber_stats_batch
from scoring.metrics.amber_pairs import split_type1, variant_stats


def synthetic_pairs(n_pairs: int, seed: int) -> tuple[list[list[str]], list[list[str]]]:
    rng = np.random.default_rng(seed)
    hyps, refs = [], []
    for _ in range(n_pairs):
        pool = rng.choice(5000, size=20, replace=False)
        for side in (hyps, refs):
            side.append([f"w{w}" for w in rng.choice(pool, size=int(rng.integers(5, 13)))])
    return hyps, refs


def per_pair(hyps: list[list[str]], refs: list[list[str]]) -> np.ndarray:
    return np.array(
        [
            np.concatenate([variant_stats(h, r), variant_stats(split_type1(h), split_type1(r))])
            for h, r in zip(hyps, refs, strict=True)
        ]
    )


def timed(fn, *args, repeat: int = 1):
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=30000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    hyps, refs = synthetic_pairs(args.pairs, args.seed)
    t_old, old = timed(per_pair, hyps, refs)
    t_new, new = timed(amber_stats_batch, hyps, refs, repeat=3)
    if not np.array_equal(old, new):
        raise SystemExit("batch rows differ from the per-pair rows")
    print(f"{args.pairs} pairs, variants 1 and 4")
    print(f"per pair (variant_stats) {t_old:8.3f} s")
    print(f"batch (numpy)            {t_new:8.3f} s   {t_old / t_new:5.1f}× faster")


if __name__ == "__main__":
    main()
