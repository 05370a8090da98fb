"""Do the rater-aware intervals cover the truth? A simulation with known true weights.

Worlds (bench/rater_world.py): three seeds, each with its own prior of reference quality and its
own raters (seed 1 uniform qualities and normal noise; seed 2 bimodal qualities; seed 3 raters
with offsets of their own, a noise the estimator does not model), times two ways systems relate
to references (outputs that follow the truly good references, and blind ones). Each panel draws
fresh items from the world and has them rated: k ratings per reference (``1+10%``: one, and a
tenth of the references a second). Per system, two targets:

* the score at the true weights on the panel's items (``same items``: only the raters vary),
  which the interval over raters must cover;
* the score at the true weights over the world's population of items (a sample of
  ``--population`` times as many items), which the interval over items and raters must cover.

Two intervals are measured: the old one (``rater_replicates``, the two-level bootstrap recentred
on the item bootstrap, around the released score; the board's until now) and the new one
(``board_draws`` + ``rater_estimates``: the rater model, the corrected score and its intervals;
the board's now). Also printed: the bias of the released and of the corrected score, the width,
and the calibration of P(ahead of next) and of the rank probabilities against the true order
(pairs reported at p should be in that order about a share p of the time). Every share comes with
its Monte Carlo standard error (√(p(1−p)/n)); every mean with SD/√n.

Run: ``.venv/bin/python bench/rater_coverage.py`` (``--quick`` for a smoke run; ``--json``,
``--figure PATH.svg``; ``--processes 2`` spreads the worlds over two processes).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import itertools

from rater_world import HI, LO, METRIC, WorldSpec, draw_sample, population_scores, rate
from svg import write_svg

from scoring.metrics import (
    RaterModelUnavailable,
    RatingPools,
    board_draws,
    percentile_bounds,
    rank_stability,
    rater_estimates,
    rater_replicates,
)
from scoring.metrics.rater_bootstrap import weight_of

CELLS = {"1": (1, 0.0), "1+10%": (1, 0.1), "2": (2, 0.0), "3": (3, 0.0), "5": (5, 0.0)}
BINS = np.array([0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0001])  # P(ahead of next) calibration


def worlds(seeds: list[int], shape: dict) -> list[WorldSpec]:
    # A seed's kind of world depends on the seed alone, so `--seeds 3` reruns seed 3's world.
    kinds = [("uniform", "normal"), ("bimodal", "normal"), ("uniform", "offsets")]
    out = []
    for seed in seeds:
        prior, raters = kinds[(seed - 1) % len(kinds)]
        for relation in ("follow-truth", "blind"):
            out.append(WorldSpec(seed, relation, raters, prior, **shape))
    return out


def ahead_truth(truth: np.ndarray, a: int, b: int) -> float:
    return 1.0 if truth[a] > truth[b] else 0.5 if truth[a] == truth[b] else 0.0


def calibration(replicates: np.ndarray, point: np.ndarray, truth: np.ndarray) -> dict:
    """(reported P(ahead of next), truly ahead) for neighbours in the order of ``point``, and
    (reported P(rank r), has rank r in truth) for every system and rank."""
    order = np.argsort(-point, kind="stable")
    found = rank_stability(replicates[order])
    pairs = [
        (float(p), ahead_truth(truth, int(order[k]), int(order[k + 1])))
        for k, p in enumerate(found.neighbour_order)
    ]
    true_rank = np.argsort(np.argsort(-truth[order], kind="stable"), kind="stable")
    ranks = [
        (float(found.rank_probs[s, r]), float(true_rank[s] == r))
        for s in range(len(order))
        for r in range(len(order))
    ]
    return {"pairs": pairs, "ranks": ranks}


def panel(spec: WorldSpec, cell: str, p: int, samples: int, truth_pop: np.ndarray) -> dict:
    k, extra = CELLS[cell]
    rng = np.random.default_rng([spec.seed, list(CELLS).index(cell), p, len(spec.relation)])
    sample = draw_sample(spec, rng)
    counts = np.full(len(sample.latent), k)
    counts[rng.random(len(counts)) < extra] += 1
    ratings, raters = rate(spec, rng, sample.latent, counts)
    released = np.array([weight_of(float(np.mean(r)), LO, HI) for r in ratings])
    # Each item's first reference is the original reply, the others candidates: the kinds a
    # release records (a reference's origin), each with its own distribution of quality.
    kinds = (np.arange(len(ratings)) % spec.n_refs > 0).astype(int)
    pools = RatingPools.of(ratings, released, LO, HI, kinds=kinds, raters=raters)
    truth_items = sample.true_scores()
    old = [
        rater_replicates(METRIC, prof, pools, samples, seed=p, weights=released).scores
        for prof in sample.profiles
    ]
    released_scores = np.array([float(METRIC.scores_from_stats(pr.rows(released).sum(axis=0)))
                                for pr in sample.profiles])  # fmt: skip
    out: dict = {
        "truth_items": truth_items.tolist(),
        "released": released_scores.tolist(),
        "old": [percentile_bounds(r) for r in old],
        "old_calibration": calibration(np.stack(old), released_scores, truth_pop),
    }
    try:
        draws = board_draws(pools, sample.profiles[0].ref_ptr, seed=p)
    except RaterModelUnavailable as exc:
        return {**out, "new": None, "unavailable": str(exc)}
    found = rater_estimates(METRIC, sample.profiles, draws, samples)
    estimates = np.array([e.estimate for e in found])
    return {
        **out,
        "new": [
            {"estimate": e.estimate, "rater": e.rater_bounds, "bounds": e.bounds} for e in found
        ],
        "sigma": draws.model.sigma,
        "new_calibration": calibration(np.stack([e.scores for e in found]), estimates, truth_pop),
    }


def simulate_world(job: tuple) -> dict:
    spec, args = job
    rng = np.random.default_rng([spec.seed, 99, len(spec.relation)])
    truth_pop = population_scores(spec, rng, spec.n_items * args.population)
    cells = {}
    for cell in args.cells:
        cells[cell] = [panel(spec, cell, p, args.samples, truth_pop) for p in range(args.panels)]
        print(f"  {spec.name}: k = {cell} done", file=sys.stderr, flush=True)
    return {"world": spec.name, "truth_population": truth_pop.tolist(), "cells": cells}


def share(x: np.ndarray) -> tuple[float, float]:
    p = float(np.mean(x))
    return p, float(np.sqrt(max(p * (1 - p), 1e-12) / len(x)))


def mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(np.mean(x)), float(np.std(x, ddof=1) / np.sqrt(len(x))) if len(x) > 1 else 0.0


def summarise_cell(world: dict, panels: list[dict]) -> list[dict]:
    """Per system: coverage, width and bias of the old and the new interval."""
    pop = np.array(world["truth_population"])
    rows = []
    for s in range(len(pop)):
        items = np.array([q["truth_items"][s] for q in panels])
        old = np.array([q["old"][s] for q in panels])
        released = np.array([q["released"][s] for q in panels])
        row = {
            "system": s,
            "old_items": share((old[:, 0] <= items) & (items <= old[:, 1])),
            "old_population": share((old[:, 0] <= pop[s]) & (pop[s] <= old[:, 1])),
            "old_width": mean_se(old[:, 1] - old[:, 0]),
            "released_bias": mean_se(released - items),
        }
        live = [q for q in panels if q["new"] is not None]
        if live:
            items_live = np.array([q["truth_items"][s] for q in live])
            rater = np.array([q["new"][s]["rater"] for q in live])
            both = np.array([q["new"][s]["bounds"] for q in live])
            est = np.array([q["new"][s]["estimate"] for q in live])
            row |= {
                "new_items": share((rater[:, 0] <= items_live) & (items_live <= rater[:, 1])),
                "new_population": share((both[:, 0] <= pop[s]) & (pop[s] <= both[:, 1])),
                "new_width_items": mean_se(rater[:, 1] - rater[:, 0]),
                "new_width": mean_se(both[:, 1] - both[:, 0]),
                "new_bias": mean_se(est - items_live),
            }
        row["available"] = len(live) / len(panels)
        rows.append(row)
    return rows


def calibration_table(result: dict, cell: str, which: str) -> dict:
    pairs, ranks = [], []
    for world in result["worlds"]:
        for q in world["cells"][cell]:
            if q.get(which):
                pairs += q[which]["pairs"]
                ranks += q[which]["ranks"]
    out = {}
    for name, points in (("ahead", pairs), ("ranks", ranks)):
        if not points:
            continue
        reported, truth = np.array(points).T
        low = BINS[0] if name == "ahead" else 0.0
        edges = BINS if name == "ahead" else np.array([0.0, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0001])
        rows = []
        for a, b in itertools.pairwise(edges):
            mask = (reported >= max(a, low)) & (reported < b)
            if mask.sum():
                rows.append({"bin": [float(a), float(min(b, 1.0))], "n": int(mask.sum()),
                             "reported": float(reported[mask].mean()),
                             "observed": share(truth[mask])})  # fmt: skip
        out[name] = rows
    return out


def report(result: dict, args) -> dict:
    summary: dict = {"cells": {}}
    print(f"{len(result['worlds'])} worlds × {args.panels} panels a cell, {args.items} items × "
          f"{args.refs} references, {args.systems} systems, {args.samples} replicates")  # fmt: skip
    head = (f"{'world':44} {'k':>5} {'sys':>3} {'old: items':>11} {'pop.':>5} {'bias':>6} | "
            f"{'new: items':>11} {'pop.':>5} {'width':>5} {'bias':>5}")  # fmt: skip
    print(head)
    for cell in args.cells:
        pooled: dict = {}
        for world in result["worlds"]:
            for row in summarise_cell(world, world["cells"][cell]):
                for key, value in row.items():
                    pooled.setdefault(key, []).append(value)
                new = (f"{row['new_items'][0]:11.1%} {row['new_population'][0]:5.0%} "
                       f"{row['new_width'][0]:5.2f} {row['new_bias'][0]:+5.2f}"
                       if "new_items" in row else f"{'unavailable':>11}")  # fmt: skip
                print(f"{world['world']:44} {cell:>5} {row['system']:>3} "
                      f"{row['old_items'][0]:11.1%} {row['old_population'][0]:5.0%} "
                      f"{row['released_bias'][0]:+6.2f} | {new}")  # fmt: skip
        cell_summary = {}
        for key in ("old_items", "old_population", "new_items", "new_population"):
            if key in pooled:
                values = np.array([v[0] for v in pooled[key]])
                ses = np.array([v[1] for v in pooled[key]])
                cell_summary[key] = {
                    "mean": float(values.mean()),
                    "se": float(np.sqrt((ses**2).sum()) / len(ses)),
                    "min": float(values.min()),
                    "max": float(values.max()),
                }
        for key in ("released_bias", "new_bias", "old_width", "new_width"):
            if key in pooled:
                cell_summary[key] = float(np.mean(np.abs([v[0] for v in pooled[key]])))
        cell_summary["available"] = float(np.mean(pooled["available"]))
        cell_summary["calibration_old"] = calibration_table(result, cell, "old_calibration")
        cell_summary["calibration_new"] = calibration_table(result, cell, "new_calibration")
        summary["cells"][cell] = cell_summary
    print("\nPooled over worlds and systems (mean coverage ± its MC SE, [lowest, highest] system)")
    for cell, c in summary["cells"].items():
        parts = []
        for key in ("old_items", "old_population", "new_items", "new_population"):
            if key in c:
                v = c[key]
                span = f"[{v['min']:.0%}, {v['max']:.0%}]"
                parts.append(f"{key} {v['mean']:.1%}±{v['se']:.1%} {span}")
        print(
            f"k={cell:>5}: "
            + "; ".join(parts)
            + f"; |bias| released {c['released_bias']:.2f}"
            + (f", corrected {c['new_bias']:.2f}" if "new_bias" in c else ", new unavailable")
        )
        for row in c["calibration_new"].get("ahead", []):
            print(f"        P(ahead) {row['bin'][0]:.2f}–{row['bin'][1]:.2f}: reported "
                  f"{row['reported']:.2f}, in that order {row['observed'][0]:.2f}"
                  f"±{row['observed'][1]:.2f} (n={row['n']})")  # fmt: skip
    return summary


def figure(summary: dict, path: Path) -> None:
    values = []
    for cell, c in summary["cells"].items():
        for key, label in (
            ("old_items", "old, same items"),
            ("old_population", "old, population"),
            ("new_items", "new, same items"),
            ("new_population", "new, population"),
        ):
            if key in c:
                v = c[key]
                values.append({"k": cell, "interval": label, "coverage": v["mean"],
                               "low": v["mean"] - 2 * v["se"], "high": v["mean"] + 2 * v["se"],
                               "lowest": v["min"]})  # fmt: skip
    x = {"field": "k", "type": "ordinal", "sort": list(CELLS), "title": "Ratings per reference"}
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "title": "Coverage of the true-weight score by 95% intervals "
        "(±2 MC SE; ticks: lowest system)",
        "data": {"values": values}, "width": 360, "height": 240,
        "encoding": {"color": {"field": "interval", "type": "nominal", "title": None}},
        "layer": [
            {"mark": {"type": "line", "point": True},
             "encoding": {"x": x, "y": {"field": "coverage", "type": "quantitative",
                                        "title": "Coverage", "scale": {"domain": [0, 1]}}}},
            {"mark": "rule", "encoding": {"x": x, "y": {"field": "low", "type": "quantitative"},
                                          "y2": {"field": "high"}}},
            {"mark": {"type": "tick", "thickness": 1},
             "encoding": {"x": x, "y": {"field": "lowest", "type": "quantitative"}}},
            {"mark": {"type": "rule", "strokeDash": [4, 4], "color": "gray"},
             "encoding": {"y": {"datum": 0.95, "type": "quantitative"},
                          "color": {"value": "gray"}}},
        ],
        "resolve": {"scale": {"y": "shared"}, "axis": {"y": "shared"}},
    }  # fmt: skip
    write_svg(spec, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--refs", type=int, default=8)
    parser.add_argument("--systems", type=int, default=6)
    parser.add_argument("--panels", type=int, default=60, help="independent panels a cell")
    parser.add_argument("--samples", type=int, default=200, help="replicates per interval")
    parser.add_argument("--population", type=int, default=500, help="population / panel items")
    parser.add_argument("--cells", nargs="+", default=list(CELLS), choices=list(CELLS))
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--figure", type=Path)
    parser.add_argument("--redraw", type=Path, help="only draw --figure from this --json file")
    args = parser.parse_args()
    if args.redraw and args.figure:
        figure(json.loads(args.redraw.read_text())["summary"], args.figure)
        return
    if args.quick:
        args.seeds, args.items, args.panels, args.samples, args.population = [1], 40, 3, 50, 3
    shape = {"n_items": args.items, "n_refs": args.refs, "n_systems": args.systems}
    started = time.perf_counter()
    jobs = [(spec, args) for spec in worlds(args.seeds, shape)]
    if args.processes > 1:
        with Pool(args.processes) as pool:
            found = pool.map(simulate_world, jobs)
    else:
        found = [simulate_world(job) for job in jobs]
    result = {"worlds": found}
    summary = report(result, args)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{time.perf_counter() - started:.0f} s, peak memory {peak:.0f} MB (this process)")
    if args.json:  # the calibration points are summarised; each panel's numbers are kept
        for world in result["worlds"]:
            for panels in world["cells"].values():
                for q in panels:
                    q.pop("old_calibration", None)
                    q.pop("new_calibration", None)
        args.json.write_text(json.dumps({"summary": summary, **result}, separators=(",", ":")))
    if args.figure:
        figure(summary, args.figure)


if __name__ == "__main__":
    main()
