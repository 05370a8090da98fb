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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotate.rating import adaptive_math  # noqa: E402  (Django-free: the product's math)
from scoring.metrics import (  # noqa: E402  # noqa: E402
    RatingPools,
    RefItem,
    WeightedRef,
    get_metric,
    rank_stability,
    rater_replicates,
    score_gradient,
    weight_profile,
)
from scoring.metrics.rater_bootstrap import weight_of  # noqa: E402

LO, HI = 1, 5
UNIFORM_SHARE = 0.25
TARGET_PER_REF = 2.0  # campaign ratings per reference of the uniform baseline (3 in all)


@dataclass(frozen=True)
class World:
    """The benchmark: references with true weights, and the systems' weight profiles."""

    items: list[RefItem]  # with the first round's weights (rewritten per panel)
    true_mean: np.ndarray  # (R,) true mean rating of each reference
    profiles: list
    true_scores: np.ndarray  # (S,) ΔBLEU at the true weights
    qualities: np.ndarray


def _tokens(rng: np.random.Generator, vocab: int, size: int) -> list[str]:
    ranks = np.minimum(rng.zipf(1.3, size=size), vocab) - 1
    return [f"w{r}" for r in ranks]


def build_world(rng: np.random.Generator, n_items: int, n_refs: int, n_systems: int) -> World:
    vocab = 3000
    refs_text: list[list[str]] = []
    true_mean = []
    for _ in range(n_items):
        topic = _tokens(rng, vocab, 6)
        item_refs = []
        for k in range(n_refs):
            body = _tokens(rng, vocab, int(rng.integers(5, 12)))
            shared = list(rng.choice(topic, size=int(rng.integers(1, 4)), replace=False))
            words = body[: len(body) // 2] + shared + body[len(body) // 2 :]
            item_refs.append(" ".join(words))
            # The first candidate is the original reply: rated well; the others anywhere.
            true_mean.append(rng.uniform(3.8, 5.0) if k == 0 else rng.uniform(1.0, 5.0))
        refs_text.append(item_refs)
    true_mean_arr = np.array(true_mean)
    true_w = weight_of(true_mean_arr, LO, HI)
    items = [
        RefItem(f"i{i}", tuple(WeightedRef(t, 1.0) for t in refs_text[i])) for i in range(n_items)
    ]
    # Qualities spread so that neighbours are close: the ranking is worth measuring.
    qualities = np.linspace(2.0, 0.0, n_systems) + rng.normal(0, 0.05, n_systems)
    metric = get_metric("dbleu", tokenize="none")
    profiles = []
    for q in qualities:
        hyps = []
        for i in range(n_items):
            w = true_w[i * n_refs : (i + 1) * n_refs]
            p = np.exp(2.5 * q * w)
            j = int(rng.choice(n_refs, p=p / p.sum()))
            words = refs_text[i][j].split()
            noisy = [t if rng.random() > 0.35 else _tokens(rng, vocab, 1)[0] for t in words]
            hyps.append(" ".join(noisy))
        profiles.append(weight_profile(metric, hyps, items))
    true_scores = np.array([score_at(metric, p, true_w) for p in profiles])
    return World(items, true_mean_arr, profiles, true_scores, qualities)


def score_at(metric, profile, weights: np.ndarray) -> float:
    return float(metric.scores_from_stats(profile.rows(weights).sum(axis=0)))


def estimated_weights(ratings: list[list[int]]) -> np.ndarray:
    """The release's weights: the mean rating's weight; an unrated reference weight 0 (the
    release's "publish unrated references with weight 0")."""
    return np.array([weight_of(np.mean(r), LO, HI) if r else 0.0 for r in ratings])


def ranking(scores: np.ndarray) -> np.ndarray:
    return np.argsort(-scores, kind="stable")


class Panel:
    """One repetition: a panel of simulated raters, its first round and its campaign."""

    def __init__(self, world: World, rng: np.random.Generator, noise: float):
        self.world, self.rng, self.noise = world, rng, noise
        self.ratings: list[list[int]] = [[] for _ in world.true_mean]
        for r in range(len(world.true_mean)):
            self.rate(r)

    def rate(self, r: int) -> None:
        score = round(self.world.true_mean[r] + self.rng.normal(0, self.noise))
        self.ratings[r].append(int(min(max(score, LO), HI)))

    def scores(self, metric) -> np.ndarray:
        w = estimated_weights(self.ratings)
        return np.array([score_at(metric, p, w) for p in self.world.profiles])


def board_terms(world: World, panel: Panel, metric) -> np.ndarray:
    """What the leaderboard of the first release tells adaptive rating (the product's
    selectors/sensitivity.py): Σ closeness · (∂Δ/∂w)² over neighbour pairs, per reference."""
    weights = estimated_weights(panel.ratings)
    scores = np.array([score_at(metric, p, weights) for p in world.profiles])
    order = ranking(scores)
    pools = RatingPools.of([[float(x) for x in r] for r in panel.ratings], weights, LO, HI)
    replicates = np.stack(
        [
            rater_replicates(metric, world.profiles[s], pools, 200, weights=weights).scores
            for s in order
        ]
    )
    holds = rank_stability(replicates).neighbour_order
    gradients = np.stack([score_gradient(metric, world.profiles[s], weights) for s in order])
    pairs = [(k, k + 1) for k in range(len(order) - 1)]
    return adaptive_math.pair_sensitivity(gradients, pairs, adaptive_math.closeness(holds))


def campaign(world, panel, metric, budget, checkpoints, adaptive, batch):
    """Spend `budget` ratings; the ranking at each checkpoint (ratings spent)."""
    counts = np.array([len(r) for r in panel.ratings], dtype=float)
    terms = board_terms(world, panel, metric) if adaptive else None
    out, spent, marks = {}, 0, list(checkpoints)
    while spent < budget:
        if adaptive:  # the debounced refresh: the boards' terms, the campaign's own variances
            model = adaptive_math.rating_model(panel.ratings)
            variances = adaptive_math.reference_variances(panel.ratings, model)
            sens = adaptive_math.sensitivities(terms, variances, LO, HI)
        for _ in range(min(batch, budget - spent)):
            if adaptive and panel.rng.random() >= UNIFORM_SHARE:
                value = adaptive_math.rating_value(sens, counts, model.a)
                r = int(np.lexsort((np.arange(len(counts)), counts, -value))[0])
            else:
                r = int(np.lexsort((np.arange(len(counts)), counts))[0])
            panel.rate(r)
            counts[r] += 1
            spent += 1
            if marks and spent == marks[0]:
                out[marks.pop(0)] = ranking(panel.scores(metric))
    return out


def kendall(a: np.ndarray, b: np.ndarray) -> float:
    pos_a, pos_b = np.argsort(a), np.argsort(b)
    n = len(a)
    i, j = np.triu_indices(n, 1)
    agree = np.sign(pos_a[i] - pos_a[j]) * np.sign(pos_b[i] - pos_b[j])
    return float(agree.mean())


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
