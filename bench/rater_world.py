"""The simulated worlds of bench/rater_coverage.py: items drawn afresh from a world's generator,
references with known true mean ratings, systems that relate to them in one of two ways, and
raters who rate with noise.

* A reference's latent quality λ is drawn once with it (the first reference of an item, the
  original reply, between 3.8 and 5; the others from the world's prior: uniform on 1–5, or
  bimodal, most candidates poor and some good).
* A rater gives round(λ + noise) clipped to 1–5; ``noise`` is normal (SD ``noise``) or, in the
  ``offsets`` rater model, each rating also carries its rater's own offset (SD 0.5), shared by
  every rating she gives. A panel has 40 raters; each rating is by a random one of them (never
  twice the same for one reference), and the pools say who.
* The true weight is the weight of the expected rating E[r | λ] (what infinitely many raters'
  mean gives): the estimand of every interval here.
* Systems ``follow-truth``: an output copies, with token noise, a reference chosen more often
  among the truly good ones the better the system (its choice follows the truth, not the
  ratings: the case that penalises shrinking the weights); or are ``blind``: an output copies a
  reference chosen at random, better systems changing fewer tokens.

Not a benchmark of its own (tests/test_bench_scripts.py lists it among the helpers).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import erf, sqrt

import numpy as np

from scoring.metrics import RefItem, WeightedRef, get_metric, weight_profile
from scoring.metrics.rater_bootstrap import weight_of

LO, HI = 1, 5
VOCAB = 3000
RATERS_PER_PANEL = 40
RATER_OFFSET_SD = 0.5
METRIC = get_metric("dbleu", tokenize="none")
POPULATION_CHUNK = 5000  # items drawn at a time for a population's score


@dataclass(frozen=True)
class WorldSpec:
    """What fixes a world: its seed, how systems relate to references, the raters, the shape."""

    seed: int
    relation: str = "follow-truth"  # or "blind"
    raters: str = "normal"  # or "offsets"
    prior: str = "uniform"  # or "bimodal"
    n_items: int = 300
    n_refs: int = 8
    n_systems: int = 6
    noise: float = 1.0

    @property
    def rating_sd(self) -> float:
        """The SD of a random rater's rating around λ (before rounding)."""
        offset = RATER_OFFSET_SD if self.raters == "offsets" else 0.0
        return sqrt(self.noise**2 + offset**2)

    @property
    def name(self) -> str:
        return f"seed {self.seed}, {self.relation}, {self.prior}, {self.raters} raters"

    def qualities(self) -> np.ndarray:
        rng = np.random.default_rng([self.seed, 0])
        return np.linspace(2.0, 0.0, self.n_systems) + rng.normal(0, 0.05, self.n_systems)


@dataclass(frozen=True)
class Sample:
    """One draw of items from a world: their references' latent qualities and true weights, and
    every system's weight profile on them."""

    latent: np.ndarray  # (n_refs_total,)
    true_weights: np.ndarray
    profiles: list

    def true_scores(self) -> np.ndarray:
        rows = [p.rows(self.true_weights).sum(axis=0) for p in self.profiles]
        return np.array([float(METRIC.scores_from_stats(r)) for r in rows])


def population_scores(spec: WorldSpec, rng: np.random.Generator, n_items: int) -> np.ndarray:
    """Every system's score at the true weights on the population of items: the score of the
    statistics a board of ``spec.n_items`` items has on average, estimated from ``n_items``
    fresh items (summed a chunk at a time, so that a hundred thousand fit in memory).

    At the board's size, not over the whole sample: BLEU's smoothing of an n-gram count that is
    zero (ΔBLEU clamps a negative count to zero) adds 1/(2·total) to the precision, which
    depends on the corpus' size, so a system at ΔBLEU's floor scores about a point on 200 items
    and nearly 0 on a hundred thousand. Every other part of the score is a ratio of sums, for
    which the size does not matter."""
    total = None
    for start in range(0, n_items, POPULATION_CHUNK):
        sample = draw_sample(spec, rng, min(POPULATION_CHUNK, n_items - start))
        sums = np.stack([p.rows(sample.true_weights).sum(axis=0) for p in sample.profiles])
        total = sums if total is None else total + sums
    assert total is not None
    board = total * (spec.n_items / n_items)
    return np.array([float(METRIC.scores_from_stats(row)) for row in board])


def _tokens(rng: np.random.Generator, size: int) -> list[str]:
    ranks = np.minimum(rng.zipf(1.3, size=size), VOCAB) - 1
    return [f"w{r}" for r in ranks]


def expected_rating(latent: np.ndarray, noise: float) -> np.ndarray:
    """E[clip(round(λ + N(0, noise²)), LO, HI)]: LO plus P(rating ≥ c) over c = LO+1..HI."""
    cuts = np.arange(LO + 0.5, HI, 1.0)
    z = (cuts[None, :] - latent[:, None]) / (noise * sqrt(2.0))
    above = 0.5 * (1.0 - np.vectorize(erf)(z))
    out: np.ndarray = LO + above.sum(axis=1)
    return out


def _latent(rng: np.random.Generator, spec: WorldSpec, first: bool) -> float:
    if first:
        return float(rng.uniform(3.8, 5.0))
    if spec.prior == "uniform":
        return float(rng.uniform(1.0, 5.0))
    good = rng.random() < 0.35
    return float(np.clip(rng.normal(4.2, 0.4) if good else rng.normal(1.8, 0.5), LO, HI))


def draw_sample(spec: WorldSpec, rng: np.random.Generator, n_items: int | None = None) -> Sample:
    """Fresh items from the world's generator, and the systems' outputs on them."""
    n_items = n_items or spec.n_items
    texts, latent = [], []
    for _ in range(n_items):
        topic = _tokens(rng, 6)
        item = []
        for k in range(spec.n_refs):
            body = _tokens(rng, int(rng.integers(5, 12)))
            shared = list(rng.choice(topic, size=int(rng.integers(1, 4)), replace=False))
            item.append(" ".join(body[: len(body) // 2] + shared + body[len(body) // 2 :]))
            latent.append(_latent(rng, spec, k == 0))
        texts.append(item)
    lat = np.array(latent)
    true_w = weight_of(expected_rating(lat, spec.rating_sd), LO, HI)
    items = [RefItem(f"i{i}", tuple(WeightedRef(t, 1.0) for t in texts[i])) for i in range(n_items)]
    profiles = []
    for q in spec.qualities():
        hyps = []
        for i in range(n_items):
            if spec.relation == "follow-truth":
                p = np.exp(2.5 * q * true_w[i * spec.n_refs : (i + 1) * spec.n_refs])
                j, drop = int(rng.choice(spec.n_refs, p=p / p.sum())), 0.35
            else:
                j, drop = int(rng.integers(spec.n_refs)), 0.2 + 0.25 * (2.0 - q)
            words = texts[i][j].split()
            hyps.append(" ".join(t if rng.random() > drop else _tokens(rng, 1)[0] for t in words))
        profiles.append(weight_profile(METRIC, hyps, items))
    return Sample(lat, true_w, profiles)


def rate(
    spec: WorldSpec, rng: np.random.Generator, latent: np.ndarray, counts: np.ndarray
) -> tuple[list[list[float]], list[list[int]]]:
    """``counts[j]`` ratings of reference j by the world's raters, and who gave each (one of
    the panel's raters at random, never the same one twice for one reference)."""
    offsets = rng.normal(0, RATER_OFFSET_SD, RATERS_PER_PANEL) if spec.raters == "offsets" else None
    out, who = [], []
    for lam, k in zip(latent, counts, strict=True):
        raters = rng.choice(RATERS_PER_PANEL, size=int(k), replace=False)
        noise = rng.normal(0, spec.noise, int(k))
        if offsets is not None:
            noise += offsets[raters]
        out.append(np.clip(np.rint(lam + noise), LO, HI).tolist())
        who.append(raters.tolist())
    return out, who
