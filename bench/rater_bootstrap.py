"""The two-level (items × ratings) bootstrap against today's item bootstrap, in one run.

Synthetic corpus: ``bench/metrics.py``'s, N items × 16 references, ~15 tokens each (noisy
variants of a per-item base sentence over a Zipfian vocabulary), with 3 ratings on 1–5 per
reference (the first reference of an item rated 4–5, so that every item has a positive weight).
For each size, in a child process of its own (so that its peak resident set is its own):

* ``stats_direct`` (today's statistics of one system) and ``weight_profile`` (the statistics
  as a function of the weights), both from cold (no tokens cached), and the profile's size in
  memory and as a file;
* ``bootstrap_ci`` (1,000 item resamples) and ``two_level_bootstrap`` (1,000 replicates that
  also resample the ratings) of the same statistics, and the ratio;
* the board's rater-aware interval today: ``board_draws`` (the rater model, fitted once per
  board) and ``rater_estimate`` (the corrected score and its 1,000 replicates over items and
  raters), timed against the same ``bootstrap_ci``; the ratings come from a crowd of
  ``RATERS`` (each reference's from different ones), whose offsets the model measures, and the
  same is timed with the raters unknown (their offsets counted as independent noise);
* the peak of the child's resident set (``ru_maxrss``) and tracemalloc's peak during the
  two-level bootstrap and during ``rater_estimate`` (numpy's arrays included).

Run: ``python bench/rater_bootstrap.py [--items 2000 10000] [--metric dbleu] [--samples 1000]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# bench/metrics.py also puts the metric library's source on the path (for a checkout where it
# is not installed).
from bench.metrics import make_corpus as metrics_corpus
from scoring.metrics import (
    RatingPools,
    RefItem,
    WeightedRef,
    board_draws,
    bootstrap_ci,
    get_metric,
    rater_estimate,
    two_level_bootstrap,
    weight_profile,
)
from scoring.metrics.tokenizers import clear_token_cache

MIB = 1024 * 1024
RATERS = 60  # the crowd behind the ratings


def make_corpus(n_items: int, n_refs: int = 16, n_ratings: int = 3, seed: int = 0):
    """``bench/metrics.py``'s corpus with rating pools: the weights become the mean ratings'."""
    hyps, items = metrics_corpus(n_items, n_refs, seed)
    rng = np.random.default_rng(seed + 1)
    ratings = []
    for _ in range(n_items):
        ratings.append(rng.integers(4, 6, size=n_ratings).astype(float).tolist())
        ratings += rng.integers(1, 6, size=(n_refs - 1, n_ratings)).astype(float).tolist()
    # Each item's first reference (rated 4–5) is its original reply: a kind of its own.
    kinds = [0 if j == 0 else 1 for _ in range(n_items) for j in range(n_refs)]
    raters = [rng.choice(RATERS, size=n_ratings, replace=False).tolist() for _ in ratings]
    pools = RatingPools.of(ratings, kinds=kinds, raters=raters)
    weights = iter(pools.weights().tolist())
    items = [
        RefItem(it.id, tuple(WeightedRef(r.text, next(weights)) for r in it.refs)) for it in items
    ]
    return hyps, items, pools


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def child(n_items: int, metric_name: str, n_samples: int) -> dict:
    """One size, measured in this (child) process."""
    hyps, items, pools = make_corpus(n_items)
    metric = get_metric(metric_name)
    clear_token_cache()
    t_stats, stats = timed(lambda: metric.stats_direct(hyps, items))
    clear_token_cache()
    t_profile, profile = timed(lambda: weight_profile(metric, hyps, items))
    if not np.array_equal(profile.rows(pools.weights()), stats):
        raise SystemExit("the profile's rows differ from stats_direct")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.prof"
        t_save, _ = timed(lambda: profile.save(path))
        file_bytes = path.stat().st_size
    t_ci, ci = timed(lambda: bootstrap_ci(metric, stats, n_samples))
    t_two, reps = timed(lambda: two_level_bootstrap(metric, profile, pools, n_samples))
    tracemalloc.start()
    two_level_bootstrap(metric, profile, pools, n_samples)
    traced_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    low, high = np.percentile(reps, [2.5, 97.5])
    t_fit, draws = timed(lambda: board_draws(pools, profile.ref_ptr))
    t_est, est = timed(lambda: rater_estimate(metric, profile, draws, n_samples))
    blind = board_draws(replace(pools, raters=None), profile.ref_ptr)
    t_blind, _ = timed(lambda: rater_estimate(metric, profile, blind, n_samples))
    tracemalloc.start()
    rater_estimate(metric, profile, draws, n_samples)
    est_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "t_fit": t_fit,
        "t_est": t_est,
        "t_blind": t_blind,
        "rater_sd": draws.model.rater_sd,
        "est": [est.estimate, *est.bounds],
        "est_peak_mib": est_peak / MIB,
        "items": n_items,
        "refs": profile.n_refs,
        "ratings": len(pools.values),
        "t_stats": t_stats,
        "t_profile": t_profile,
        "t_save": t_save,
        "profile_mib": profile.nbytes / MIB,
        "file_mib": file_bytes / MIB,
        "t_ci": t_ci,
        "t_two": t_two,
        "ci": [ci.low, ci.high],
        "two": [low, high],
        "score": ci.score,
        "two_peak_mib": traced_peak / MIB,
        "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    """Print one block of numbers per size (each measured in a child process)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--metric", default="dbleu", choices=["dbleu", "dnist"])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.metric, args.samples)))
        return
    for n in args.items:
        cmd = [sys.executable, __file__, "--child", str(n), "--metric", args.metric]
        out = subprocess.run(
            [*cmd, "--samples", str(args.samples)], check=True, capture_output=True, text=True
        )
        r = json.loads(out.stdout)
        print(f"{args.metric}, {r['items']:,} items × 16 refs, {r['ratings']:,} ratings:")
        print(f"  stats_direct        {r['t_stats']:7.2f} s")
        print(
            f"  weight_profile      {r['t_profile']:7.2f} s  ({r['t_profile'] / r['t_stats']:.2f}×"
            f" stats_direct); {r['profile_mib']:.1f} MiB in memory, {r['file_mib']:.1f} MiB"
            f" as a file (saved in {r['t_save']:.2f} s)"
        )
        print(f"  bootstrap_ci        {r['t_ci']:7.2f} s  ({args.samples} resamples)")
        print(
            f"  two_level_bootstrap {r['t_two']:7.2f} s  ({r['t_two'] / r['t_ci']:.1f}×"
            f" bootstrap_ci); peak {r['two_peak_mib']:.0f} MiB traced during it"
        )
        print(
            f"  score {r['score']:.2f}: items only [{r['ci'][0]:.2f}, {r['ci'][1]:.2f}], "
            f"items × ratings [{r['two'][0]:.2f}, {r['two'][1]:.2f}] (2.5–97.5%)"
        )
        print(
            f"  board_draws         {r['t_fit']:7.2f} s  (the rater model, once per board)\n"
            f"  rater_estimate      {r['t_est']:7.2f} s  ({r['t_est'] / r['t_ci']:.1f}×"
            f" bootstrap_ci); peak {r['est_peak_mib']:.0f} MiB traced during it; {RATERS} "
            f"raters, offsets' spread τ = {r['rater_sd']:.2f}\n"
            f"  … raters unknown    {r['t_blind']:7.2f} s  (the offsets' simulation costs "
            f"{r['t_est'] / r['t_blind']:.2f}× that)"
        )
        print(
            f"  corrected {r['est'][0]:.2f}, items + raters [{r['est'][1]:.2f}, {r['est'][2]:.2f}]"
        )
        print(f"  peak resident set of the process: {r['maxrss_mib']:.0f} MiB")


if __name__ == "__main__":
    main()
