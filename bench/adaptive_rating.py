"""Adaptive against uniform rating, by simulation: ratings spent against the true ranking.

A synthetic benchmark with known truth (bench/adaptive_world.py): items with candidate
references whose true mean ratings (hence true ΔBLEU weights) are drawn once, and systems of
known quality whose outputs copy, with noise, a reference chosen more often among the good ones
the better the system. Simulated raters rate a reference with its true mean plus noise, rounded
to the 1–5 scale. The true ranking is the systems' order by ΔBLEU at the true weights.

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
the ranking of the next release. Over several worlds (seeds of the benchmark) and independent
panels of raters in each, we measure against the truth: Kendall τ between the panel's ranking
and the true one, P(top-1 correct) and P(top-k order correct), each with its Monte Carlo
standard error; τ between two panels (stability) is kept as a secondary measure.

The claim tested: adaptive reaches uniform's τ to the truth at 2 campaign ratings per reference
(3 in all) with fewer campaign ratings; the saving's 95% interval comes from a bootstrap over
panels (resampled within each world, curves refitted, crossing found again).

Run: ``.venv/bin/python bench/adaptive_rating.py`` (``--quick`` for a smoke run;
``--figure PATH.svg`` writes the figure through the vendored Vega-Lite and Node.js).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adaptive_world import Panel, build_world, campaign, kendall, ranking  # noqa: E402
from svg import write_svg  # noqa: E402

from scoring.metrics import get_metric  # noqa: E402

TARGET_PER_REF = 2.0  # campaign ratings per reference of the uniform baseline (3 in all)
POLICIES = ("uniform", "adaptive")
MEASURES = ("tau_truth", "top1", "topk")  # per panel and checkpoint
SHARES = {"top1", "topk"}
SHOWN = (0.5, 1.0, 1.5, 2.0)  # the per-world table's checkpoints (every one is in the JSON)


def between(panels: list[dict], c: int) -> float:
    """The mean Kendall τ between two panels' rankings at checkpoint `c` (stability)."""
    return float(
        np.mean([kendall(a[c], b[c]) for i, a in enumerate(panels) for b in panels[i + 1 :]])
    )


def simulate_world(args, metric, seed: int, checkpoints: list[int], step: int) -> dict:
    """One world: per policy, each panel's measures at each checkpoint (panels × checkpoints),
    and the mean τ between two panels' rankings per checkpoint."""
    world = build_world(np.random.default_rng(seed), args.items, args.refs, args.systems)
    truth = ranking(world.true_scores)
    out: dict = {"seed": seed, "true_scores": [float(x) for x in world.true_scores[truth]]}
    rankings: dict[str, list[dict]] = {p: [] for p in POLICIES}
    for p in range(args.panels):
        for policy in POLICIES:
            # The same seed for both policies: the same first round (so the same ranking at 0
            # campaign ratings), which pairs the two policies panel by panel.
            panel = Panel(world, np.random.default_rng([seed, p]), args.noise)
            marks = campaign(
                world, panel, metric, checkpoints[-1], checkpoints, policy == "adaptive", step // 2
            )
            rankings[policy].append(marks)
    k = args.top_k
    for policy in POLICIES:
        panels = rankings[policy]
        grid = [[m[c] for c in checkpoints] for m in panels]
        out[policy] = {
            "tau_truth": [[kendall(r, truth) for r in row] for row in grid],
            "top1": [[float(r[0] == truth[0]) for r in row] for row in grid],
            "topk": [[float(tuple(r[:k]) == tuple(truth[:k])) for r in row] for row in grid],
            "tau_panels": [between(panels, c) for c in checkpoints],
        }
    return out


def simulate(args: argparse.Namespace) -> dict:
    metric = get_metric("dbleu", tokenize="none")
    n_refs = args.items * args.refs
    step = max(n_refs // 10, 1)
    budget = round(args.max_per_ref * n_refs)
    # 0: the first round alone, the same for both policies (the curves' common start).
    checkpoints = [0, *range(step, budget + 1, step)]
    started = time.perf_counter()
    worlds = [
        simulate_world(args, metric, args.seed + w, checkpoints, step) for w in range(args.worlds)
    ]
    return {
        "n_refs": n_refs,
        "spent": checkpoints,
        "per_ref": [c / n_refs for c in checkpoints],
        "worlds": worlds,
        "seconds": time.perf_counter() - started,
    }


def array(result: dict, policy: str, measure: str) -> np.ndarray:
    """worlds × panels × checkpoints."""
    return np.array([w[policy][measure] for w in result["worlds"]])


def mean_se(x: np.ndarray, share: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per world (worlds × checkpoints) and pooled (checkpoints): the mean over panels and its
    Monte Carlo SE. The worlds are fixed, the panels are the sampling: the pooled mean is the
    worlds' average, its SE √(Σ SE_w²) / W (strata of equal size)."""
    n = x.shape[1]
    m = x.mean(axis=1)
    se = np.sqrt(m * (1 - m) / n) if share else x.std(axis=1, ddof=1) / np.sqrt(n)
    return m, se, m.mean(axis=0), np.sqrt((se**2).sum(axis=0)) / len(m)


def isotonic(values) -> np.ndarray:
    """The closest non-decreasing sequence (pool adjacent violators): more ratings cannot take
    a ranking further from the truth in expectation, so this removes the panels' noise only."""
    blocks: list[list[float]] = []  # [sum, count]
    for v in values:
        blocks.append([float(v), 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    return np.array([b[0] / b[1] for b in blocks for _ in range(int(b[1]))])


def crossing(uniform, adaptive, spent: list[int], goal: int) -> float | None:
    """The saving: 1 − (the fewest adaptive ratings whose fitted τ reaches uniform's fitted τ at
    `goal`) / goal, or None if adaptive never reaches it. Between two checkpoints the ratings
    are interpolated linearly, so that the saving is not stuck to the checkpoints' 5% grid."""
    fu, fa = isotonic(uniform), isotonic(adaptive)
    target = fu[spent.index(goal)]
    above = np.nonzero(fa >= target - 1e-12)[0]
    if not len(above):
        return None
    i = int(above[0])
    if i == 0:
        return 1.0
    x = spent[i - 1] + (target - fa[i - 1]) / (fa[i] - fa[i - 1]) * (spent[i] - spent[i - 1])
    return round(1 - x / goal, 12)  # no -1e-16 for "no saving"


def summarise(result: dict) -> dict:
    spent, n_worlds = result["spent"], len(result["worlds"])
    rows, per_world = [], [[] for _ in range(n_worlds)]
    for policy in POLICIES:
        stats = {m: mean_se(array(result, policy, m), m in SHARES) for m in MEASURES}
        panels_tau = np.array([w[policy]["tau_panels"] for w in result["worlds"]])
        fitted = isotonic(stats["tau_truth"][2])
        for c, s in enumerate(spent):
            row = {"policy": policy, "spent": s, "per_ref": s / result["n_refs"]}
            for m, (_, _, pm, pse) in stats.items():
                row[m], row[f"{m}_se"] = float(pm[c]), float(pse[c])
            row["tau_truth_fitted"] = float(fitted[c])
            row["tau_panels"] = float(panels_tau[:, c].mean())
            rows.append(row)
            for w in range(n_worlds):
                cell = {"policy": policy, "spent": s, "per_ref": row["per_ref"]}
                for m, (wm, wse, _, _) in stats.items():
                    cell[m], cell[f"{m}_se"] = float(wm[w, c]), float(wse[w, c])
                cell["tau_panels"] = float(panels_tau[w, c])
                per_world[w].append(cell)
    # Equal budgets: adaptive − uniform panel by panel (paired by the panel's seed).
    differences = []
    for c, s in enumerate(spent):
        row = {"spent": s, "per_ref": s / result["n_refs"]}
        for m in ("tau_truth", "topk"):
            d = array(result, "adaptive", m)[:, :, c] - array(result, "uniform", m)[:, :, c]
            se_w = d.std(axis=1, ddof=1) / np.sqrt(d.shape[1])
            row[f"{m}_diff"] = float(d.mean())
            row[f"{m}_diff_se"] = float(np.sqrt((se_w**2).sum()) / n_worlds)
        differences.append(row)
    return {"rows": rows, "per_world": per_world, "differences": differences}


def verdict(result: dict, args: argparse.Namespace) -> dict:
    """The saving on the pooled curves, per world, and its bootstrap interval."""
    spent = result["spent"]
    goal = round(TARGET_PER_REF * result["n_refs"])
    tau = {p: array(result, p, "tau_truth") for p in POLICIES}  # worlds × panels × checkpoints
    n_worlds, n_panels, _ = tau["uniform"].shape

    def pooled(p, idx=None):
        x = tau[p] if idx is None else tau[p][np.arange(n_worlds)[:, None], idx]
        return x.mean(axis=1).mean(axis=0)

    saving = crossing(pooled("uniform"), pooled("adaptive"), spent, goal)
    worlds = [
        crossing(tau["uniform"][w].mean(0), tau["adaptive"][w].mean(0), spent, goal)
        for w in range(n_worlds)
    ]
    rng = np.random.default_rng([args.seed, 0xB007])
    boot = []
    for _ in range(args.bootstrap):
        # The same resampled panels for both policies: their pairing is kept.
        idx = rng.integers(0, n_panels, size=(n_worlds, n_panels))
        s = crossing(pooled("uniform", idx), pooled("adaptive", idx), spent, goal)
        boot.append(-np.inf if s is None else s)  # never reached: no saving, below any other
    lo, hi = (float(q) for q in np.quantile(boot, [0.025, 0.975], method="inverted_cdf"))
    uniform_fit = isotonic(pooled("uniform"))[spent.index(goal)]
    return {
        "target_per_ref": TARGET_PER_REF,
        "uniform_ratings": goal,
        "uniform_tau_truth_fitted": float(uniform_fit),
        "saving": saving,
        "adaptive_ratings": None if saving is None else (1 - saving) * goal,
        "saving_interval": [None if np.isinf(lo) else lo, None if np.isinf(hi) else hi],
        "bootstrap": args.bootstrap,
        "bootstrap_never_reached": float(np.mean(np.isinf(boot))),
        "saving_per_world": worlds,
        "established": saving is not None and not np.isinf(lo) and lo > 0,
    }


def sentence(v: dict) -> str:
    lo, hi = v["saving_interval"]
    low = "never reaching it" if lo is None else f"{lo:.0%}"
    high = "never reaching it" if hi is None else f"{hi:.0%}"
    interval = f"95% interval {low} to {high}; {v['bootstrap']} bootstrap resamples of panels"
    where = f"uniform's τ to the truth at {v['target_per_ref']:.1f} ratings per reference"
    if v["saving"] is None:
        return (f"the saving is not established: adaptive never reaches {where} within the "
                f"budget ({interval})")  # fmt: skip
    if v["established"]:
        return f"adaptive reaches {where} with {v['saving']:.0%} fewer ratings ({interval})"
    return (f"the saving is not established: adaptive reaches {where} with {v['saving']:.0%} "
            f"fewer ratings, but its interval includes no saving ({interval})")  # fmt: skip


def figure(result: dict, summary: dict, decision: dict, path: Path) -> None:
    """τ to the truth (±2 SE band) and P(top-k correct) (±2 SE band) against campaign ratings
    per reference, both policies, as an SVG drawn by the vendored Vega-Lite under Node.js; a
    dashed line marks uniform's fitted τ at the target, the goal adaptive has to reach."""
    rows = [
        {**r, **{f"{m}_{e}": r[m] + sign * 2 * r[f"{m}_se"] for m in ("tau_truth", "topk")
                 for e, sign in (("lo", -1), ("hi", 1))}}
        for r in summary["rows"]
    ]  # fmt: skip

    def panel(title, field, label, goal=None):
        x = {"field": "per_ref", "type": "quantitative", "title": "Campaign ratings per reference"}
        color = {"field": "policy", "type": "nominal", "title": None}
        layers = [
            {"mark": {"type": "area", "opacity": 0.2},
             "encoding": {"x": x, "color": color,
                          "y": {"field": f"{field}_lo", "type": "quantitative", "title": label,
                                "scale": {"zero": False}},
                          "y2": {"field": f"{field}_hi"}}},
            {"mark": {"type": "line", "point": True},
             "encoding": {"x": x, "color": color,
                          "y": {"field": field, "type": "quantitative", "title": label}}},
        ]  # fmt: skip
        if goal is not None:
            layers.append({
                "data": {"values": [{"goal": goal}]},
                "mark": {"type": "rule", "strokeDash": [4, 4], "color": "gray"},
                "encoding": {"y": {"field": "goal", "type": "quantitative"}},
            })  # fmt: skip
        return {"title": title, "layer": layers}

    k = result.get("top_k", 3)
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "data": {"values": rows},
        "width": 300,
        "height": 200,
        "hconcat": [
            panel("Kendall τ to the true ranking (±2 SE)", "tau_truth", "Mean τ",
                  decision["uniform_tau_truth_fitted"]),
            panel(f"Top-{k} order correct (±2 SE)", "topk", "Share of panels"),
        ],
    }  # fmt: skip
    write_svg(spec, path)


def report(args, result: dict, summary: dict, decision: dict) -> None:
    k, n_refs = args.top_k, result["n_refs"]
    print(f"{args.items} items × {args.refs} references ({n_refs}), {args.systems} systems, "
          f"{args.worlds} worlds (seeds {args.seed}–{args.seed + args.worlds - 1}) × "
          f"{args.panels} panels of raters (SD {args.noise}); mean ± Monte Carlo SE")  # fmt: skip
    head = f"{'policy':9} {'per ref':>7} {'τ truth':>15} {'fitted':>6} {'P(top-1)':>11} "
    print(head + f"{f'P(top-{k})':>11} {'τ panels':>8}")
    for r in summary["rows"]:
        print(f"{r['policy']:9} {r['per_ref']:7.1f} {r['tau_truth']:7.3f} ± {r['tau_truth_se']:.3f}"
              f" {r['tau_truth_fitted']:6.3f} {r['top1']:5.2f} ± {r['top1_se']:.2f}"
              f" {r['topk']:5.2f} ± {r['topk_se']:.2f} {r['tau_panels']:8.3f}")  # fmt: skip
    print(f"\nPer world, τ to the truth / P(top-{k}) (mean ± SE over {args.panels} panels):")
    for w, cells in zip(result["worlds"], summary["per_world"], strict=True):
        for policy in POLICIES:
            shown = [c for c in cells if c["policy"] == policy and round(c["per_ref"], 6) in SHOWN]
            text = "  ".join(f"{c['per_ref']:.1f}: {c['tau_truth']:.3f}±{c['tau_truth_se']:.3f}"
                             f" / {c['topk']:.2f}" for c in shown)  # fmt: skip
            print(f"  seed {w['seed']} {policy:9} {text}")
    print("\nEqual budgets, adaptive − uniform (paired by panel seed, ± SE):")
    print(f"{'per ref':>7} {'Δ τ truth':>16} {f'Δ P(top-{k})':>14}")
    for d in summary["differences"][1:]:
        print(f"{d['per_ref']:7.1f} {d['tau_truth_diff']:+8.3f} ± {d['tau_truth_diff_se']:.3f}"
              f" {d['topk_diff']:+7.2f} ± {d['topk_diff_se']:.2f}")  # fmt: skip
    per_world = ", ".join(
        "never" if s is None else f"{s:.0%}" for s in decision["saving_per_world"]
    )
    print(f"\nsaving per world: {per_world}; bootstrap resamples where adaptive never reaches "
          f"the goal: {decision['bootstrap_never_reached']:.1%}")  # fmt: skip
    print(json.dumps(decision))
    print(sentence(decision))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{result['seconds']:.1f} s, peak memory {peak:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--refs", type=int, default=8, help="candidate references per item")
    parser.add_argument("--systems", type=int, default=8)
    parser.add_argument("--worlds", type=int, default=3, help="benchmarks (seeds) pooled")
    parser.add_argument("--panels", type=int, default=32, help="panels of raters per world")
    parser.add_argument("--noise", type=float, default=1.0, help="raters' SD on the 1-5 scale")
    parser.add_argument("--max-per-ref", type=float, default=2.0)
    parser.add_argument("--top-k", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2015, help="the first world's seed")
    parser.add_argument("--bootstrap", type=int, default=2000, help="resamples of the panels")
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("--figure", type=Path, help="write the figure (SVG) here")
    parser.add_argument("--json", type=Path, help="write every number here")
    args = parser.parse_args()
    if args.quick:
        args.items, args.panels = 60, 4
    if args.panels < 2 or args.worlds < 1 or args.max_per_ref < TARGET_PER_REF:
        parser.error(f"needs 2 panels, 1 world and --max-per-ref ≥ {TARGET_PER_REF:g}")
    result = simulate(args)
    result["top_k"] = args.top_k
    summary = summarise(result)
    decision = verdict(result, args)
    report(args, result, summary, decision)
    if args.figure:
        figure(result, summary, decision, args.figure)
    if args.json:
        everything = {"args": {k: str(v) if isinstance(v, Path) else v
                               for k, v in vars(args).items()},
                      **result, **summary, "verdict": decision}  # fmt: skip
        args.json.write_text(json.dumps(everything, separators=(",", ":")))


if __name__ == "__main__":
    main()
