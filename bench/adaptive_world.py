"""The simulated world of bench/adaptive_rating.py: references with known true weights, systems
of known quality, panels of simulated raters and the two assignment policies.

Kept apart from the measurement so that the script stays readable; it is not a benchmark of its
own (tests/test_bench_scripts.py lists it among the helpers, not the scripts).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotate.rating import adaptive_math  # Django-free: the product's own math
from scoring.metrics import (
    RatingPools,
    RefItem,
    WeightedRef,
    get_metric,
    rank_stability,
    rater_replicates,
    score_gradient,
    weight_profile,
)
from scoring.metrics.rater_bootstrap import weight_of

LO, HI = 1, 5
UNIFORM_SHARE = 0.25


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
    if marks and marks[0] == 0:  # the first round's ranking, before any campaign rating
        out[marks.pop(0)] = ranking(panel.scores(metric))
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
