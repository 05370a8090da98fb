"""Adaptive against uniform rating, by simulation: ratings spent against rank stability.

A synthetic benchmark with known truth: items with candidate references whose true mean ratings
(hence true ΔBLEU weights) are drawn once, and systems of known quality whose outputs copy,
with noise, a reference chosen more often among the good ones the better the system. Simulated
raters rate a reference with its true mean plus noise, rounded to the 1–5 scale.

The product's situation is simulated: a first round gave every reference one rating; its
weights were released and the systems are on a leaderboard (their weight profiles and its
bootstrap, as the product stores them). A second campaign then spends a budget of ratings:

* uniform: the reference with the fewest ratings next (the product's uniform assignment);
* adaptive: the product's adaptive assignment — annotate/rating/adaptive_math.py on the
  leaderboard's gradients (the library's `score_gradient`) and neighbours' closeness (its
  `rater_replicates` and `rank_stability`), each reference's value
  sensitivity / ((a + n)(a + n + 1)) following its count at once, priorities refreshed every
  batch as the product's debounced task does, a uniform share of 25% kept.

After every tenth of a rating per reference, the weights estimated from all ratings so far give
the ranking of the next release. Over independent panels of raters (repetitions), we measure:

* rank stability: the mean Kendall τ between the rankings of two different panels (1: every
  panel ranks alike), and the share of panels whose ranking is the modal one;
* the error of the top-k order: the share of panels whose top-k order differs from the one the
  true weights give.

The claim tested: adaptive reaches uniform's rank stability at 3 ratings per reference (one
from the first round, two from the campaign) with at least 30% fewer campaign ratings.

Run: ``.venv/bin/python bench/adaptive_rating.py`` (``--quick`` for a smoke run;
``--figure PATH.svg`` writes the figure through the vendored Vega-Lite and Node.js).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# The simulated world and its policies live in bench/adaptive_world.py.
from adaptive_world import Panel, build_world, campaign, kendall, ranking  # noqa: E402

from scoring.metrics import get_metric  # noqa: E402

TARGET_PER_REF = 2.0  # campaign ratings per reference of the uniform baseline (3 in all)


def measures(rankings: list[np.ndarray], truth: np.ndarray, k: int) -> dict[str, float]:
    n = len(rankings)
    taus = [kendall(rankings[x], rankings[y]) for x in range(n) for y in range(x + 1, n)]
    keys = [tuple(r) for r in rankings]
    modal = max(set(keys), key=keys.count)
    return {
        "stability_tau": float(np.mean(taus)),
        "modal_share": keys.count(modal) / n,
        "topk_error": float(np.mean([tuple(r[:k]) != tuple(truth[:k]) for r in rankings])),
        "tau_to_truth": float(np.mean([kendall(r, truth) for r in rankings])),
    }


def run(args: argparse.Namespace) -> dict:
    metric = get_metric("dbleu", tokenize="none")
    world = build_world(np.random.default_rng(args.seed), args.items, args.refs, args.systems)
    n_refs = len(world.true_mean)
    step = max(n_refs // 10, 1)
    budget = round(args.max_per_ref * n_refs)
    checkpoints = list(range(step, budget + 1, step))
    truth = ranking(world.true_scores)
    curves: dict[str, dict[int, list[np.ndarray]]] = {"uniform": {}, "adaptive": {}}
    started = time.perf_counter()
    for p in range(args.panels):
        for policy in curves:
            panel = Panel(world, np.random.default_rng([args.seed, p]), args.noise)
            marks = campaign(
                world, panel, metric, budget, checkpoints, policy == "adaptive", step // 2
            )
            for spent, ranked in marks.items():
                curves[policy].setdefault(spent, []).append(ranked)
    rows = []
    for policy, by_budget in curves.items():
        for spent in checkpoints:
            m = measures(by_budget[spent], truth, args.top_k)
            rows.append({"policy": policy, "spent": spent, "per_ref": spent / n_refs, **m})
    return {
        "rows": rows,
        "n_refs": n_refs,
        "seconds": time.perf_counter() - started,
        "true_scores": [float(x) for x in world.true_scores[truth]],
    }


def isotonic(values: list[float]) -> list[float]:
    """The closest non-decreasing sequence (pool adjacent violators): more ratings cannot make
    a ranking less stable in expectation, so this removes the panels' sampling noise only."""
    blocks: list[list[float]] = []  # [sum, count]
    for v in values:
        blocks.append([v, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    return [b[0] / b[1] for b in blocks for _ in range(int(b[1]))]


def verdict(result: dict, target: float) -> dict:
    """Uniform's stability at `target` campaign ratings per reference, and the fewest adaptive
    ratings reaching it, both on the isotonic fit of the mean pairwise Kendall τ between
    panels (a curve that only rises with ratings: the panels' noise smoothed out)."""
    rows, n_refs = result["rows"], result["n_refs"]
    fitted = {}
    for policy in ("uniform", "adaptive"):
        mine = [r for r in rows if r["policy"] == policy]
        for row, value in zip(mine, isotonic([r["stability_tau"] for r in mine]), strict=True):
            row["stability_fitted"] = value
        fitted[policy] = mine
    goal = round(target * n_refs)
    uniform = next(r for r in fitted["uniform"] if r["spent"] == goal)
    reached = next(
        (r for r in fitted["adaptive"] if r["stability_fitted"] >= uniform["stability_fitted"]),
        None,
    )
    return {
        "uniform_ratings": goal,
        "uniform_stability_tau": uniform["stability_fitted"],
        "uniform_topk_error": uniform["topk_error"],
        "adaptive_ratings": reached["spent"] if reached else None,
        "adaptive_stability_tau": reached["stability_fitted"] if reached else None,
        "adaptive_topk_error": reached["topk_error"] if reached else None,
        "saving": 1 - reached["spent"] / goal if reached else None,
    }


def figure(result: dict, decision: dict, path: Path) -> None:
    """The two curves (stability and top-k error against ratings per reference) as an SVG,
    drawn by the vendored Vega-Lite (the charts' library) under Node.js; a dashed line marks
    uniform's stability at the target, the goal adaptive has to reach."""
    goal = decision["uniform_stability_tau"]
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "data": {"values": result["rows"]},
        "width": 300,
        "height": 200,
        "hconcat": [
            {
                "title": "Rank stability (Kendall τ between panels)",
                "layer": [
                    {
                        "mark": {"type": "line", "point": True},
                        "encoding": {
                            "x": {"field": "per_ref", "type": "quantitative",
                                  "title": "Campaign ratings per reference"},
                            "y": {"field": "stability_tau", "type": "quantitative",
                                  "title": "Mean τ", "scale": {"zero": False}},
                            "color": {"field": "policy", "type": "nominal", "title": None},
                        },
                    },
                    {
                        "data": {"values": [{"goal": goal}]},
                        "mark": {"type": "rule", "strokeDash": [4, 4], "color": "gray"},
                        "encoding": {"y": {"field": "goal", "type": "quantitative"}},
                    },
                ],
            },
            {
                "title": "Error of the top-3 order",
                "mark": {"type": "line", "point": True},
                "encoding": {
                    "x": {"field": "per_ref", "type": "quantitative",
                          "title": "Campaign ratings per reference"},
                    "y": {"field": "topk_error", "type": "quantitative",
                          "title": "Share of panels"},
                    "color": {"field": "policy", "type": "nominal", "title": None},
                },
            },
        ],
    }  # fmt: skip
    render = (
        'const fs=require("fs"),vm=require("vm");globalThis.module=globalThis.exports=undefined;'
        'for(const f of["vega.min.js","vega-lite.min.js"])vm.runInThisContext('
        'fs.readFileSync(process.argv[1]+"/"+f,"utf8"),{filename:f});'
        "const s=JSON.parse(fs.readFileSync(0,'utf8'));"
        "new vega.View(vega.parse(vegaLite.compile(s).spec),{renderer:'none'}).toSVG()"
        ".then(x=>process.stdout.write(x));"
    )
    svg = subprocess.run(
        ["node", "-e", render, str(ROOT / "static" / "vendor" / "vega")],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    path.write_text(svg)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--refs", type=int, default=8, help="candidate references per item")
    parser.add_argument("--systems", type=int, default=8)
    parser.add_argument("--panels", type=int, default=48, help="independent panels of raters")
    parser.add_argument("--noise", type=float, default=1.0, help="raters' SD on the 1-5 scale")
    parser.add_argument("--max-per-ref", type=float, default=2.0)
    parser.add_argument("--top-k", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2015)
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("--figure", type=Path, help="write the figure (SVG) here")
    parser.add_argument("--json", type=Path, help="write every number here")
    args = parser.parse_args()
    if args.quick:
        args.items, args.panels = 60, 4
    result = run(args)
    decision = verdict(result, TARGET_PER_REF)
    world = f"{args.items} items × {args.refs} references ({result['n_refs']})"
    print(f"{world}, {args.systems} systems, {args.panels} panels of raters (SD {args.noise}), "
          f"seed {args.seed}")  # fmt: skip
    print(f"{'policy':9} {'per ref':>7} {'τ panels':>9} {'fitted':>7} {'modal':>6} "
          f"{'top-k err':>9} {'τ truth':>8}")  # fmt: skip
    for row in result["rows"]:
        print(f"{row['policy']:9} {row['per_ref']:7.1f} {row['stability_tau']:9.3f} "
              f"{row['stability_fitted']:7.3f} {row['modal_share']:6.2f} "
              f"{row['topk_error']:9.2f} {row['tau_to_truth']:8.3f}")  # fmt: skip
    print(json.dumps(decision))
    if decision["saving"] is None:
        print("adaptive did not reach uniform's stability within the budget")
    else:
        print(f"adaptive reaches uniform's stability at {TARGET_PER_REF:g} ratings per reference "
              f"with {decision['saving']:.0%} fewer campaign ratings")  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{result['seconds']:.1f} s, peak memory {peak:.0f} MB")
    if args.figure:
        figure(result, decision, args.figure)
    if args.json:
        args.json.write_text(json.dumps({**result, "verdict": decision}, indent=1))


if __name__ == "__main__":
    main()
