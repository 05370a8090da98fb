"""A model of the ratings behind ΔBLEU's weights: each reference's quality, the raters' noise.

ΔBLEU's weight of a reference is the rescaled mean of a few ratings (Galley et al. 2015, sec.
4), and the metric takes maxima over weights: each item's denominator is max_j w_ij, and each
matched n-gram earns the largest weight among the references that hold it. A maximum over noisy
weights exceeds, on average, the maximum over the weights infinitely many raters would give
(E[max] ≥ max E), so the score at the released weights is biased — by several of its own
standard deviations at one to three ratings per reference — and resampling each reference's
ratings (:func:`.rater_bootstrap.rater_replicates`) cannot see it: at one rating a reference's
resample is its rating, and at two the resample's spread is half the truth's.

**The model** (:class:`RaterModel`): a rating of reference j is its latent quality λ_j plus
rater noise N(0, σ²), rounded to the scale (thresholds half-way between the levels, the ends
open): an ordered probit with one σ pooled over every reference, so that a reference with one
rating still has an uncertainty. The references' λ follow a distribution G estimated from all
the ratings without a shape imposed (the nonparametric maximum likelihood of Kiefer & Wolfowitz
1956, by EM on a grid, Jiang & Zhang 2009). σ is identified only by references rated more than
once (:data:`MIN_REPEATED`); without them the model refuses (:class:`RaterModelUnavailable`).
The *true weight* of a reference is the weight of its expected rating, E[r | λ_j]: the weight
infinitely many raters would give.

**Raters' own offsets.** A rater who is harsher than the rest is harsher on every reference she
rates, so her errors are shared: a panel of a few dozen raters moves many weights together, and
an interval that treats every rating's noise as independent is too narrow. When the pools say
who gave each rating (``RatingPools.raters``), :func:`rater_offset_sd` measures the spread τ of
the raters' offsets (a two-way least-squares fit, references × raters, its sampling noise
removed), and the simulations split σ² into τ² shared by a rater's ratings and σ² − τ² of
their own.

The score corrected with it, and its intervals, are in :mod:`.rater_correction`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from .base import MetricInputError
from .rater_bootstrap import RatingPools, weight_of

MIN_REPEATED = 20  # references rated twice or more that σ needs (below it, no estimate)
LATENT_POINTS = 81  # the grid of G: λ from half a scale below the lowest level to above the top
# σ's candidates, as shares of the scale's width (1–5: 0.12 to 4 rating points), then refined.
SIGMA_SHARES = np.geomspace(0.03, 1.0, 25)
EM_ITERATIONS = 150  # per candidate σ, warm-started from the last: G changes < 1e-6 by then
MODEL_VERSION = "ordered-probit-npmle/2"  # /2: the raters' offsets
# Distinct rating patterns up to which an item's posterior maximum is a matrix product over them.
PATTERN_PRODUCT_MAX = 512
# The raters' offsets take at most this share of σ (the rest is each rating's own noise).
OFFSET_SHARE_MAX = 0.95


class RaterModelUnavailable(MetricInputError):
    """The ratings cannot give a model (the message says why, in words for a board)."""


def _ordinal_probs(latent: np.ndarray, sigma: float, lo: int, hi: int) -> np.ndarray:
    """P(rating = level | λ) for every grid point and level: (G, levels)."""
    from math import erf, sqrt

    cuts = np.arange(lo + 0.5, hi, 1.0)
    z = (cuts[None, :] - latent[:, None]) / (sigma * sqrt(2.0))
    cdf = 0.5 * (1.0 + np.vectorize(erf)(z))
    edges = np.concatenate([np.zeros((len(latent), 1)), cdf, np.ones((len(latent), 1))], axis=1)
    return np.clip(np.diff(edges, axis=1), 1e-300, 1.0)


def rating_counts(pools: RatingPools) -> tuple[np.ndarray, int, int]:
    """Each reference's count of every level (n_refs, levels) and the scale's integer ends;
    :class:`RaterModelUnavailable` for ratings that are not levels of an integer scale."""
    lo, hi = pools.scale_min, pools.scale_max
    if lo != int(lo) or hi != int(hi):
        raise RaterModelUnavailable(f"the scale [{lo}, {hi}] has no integer levels")
    if not np.array_equal(pools.values, np.round(pools.values)):
        raise RaterModelUnavailable("ratings that are not whole levels of the scale")
    levels = int(hi - lo) + 1
    sizes = np.diff(pools.ptr)
    ref = np.repeat(np.arange(pools.n_refs), sizes)
    flat = ref * levels + (pools.values - lo).astype(np.int64)
    counts = np.bincount(flat, minlength=pools.n_refs * levels).reshape(pools.n_refs, levels)
    return counts, int(lo), int(hi)


@dataclass(frozen=True, eq=False)
class RaterModel:
    """An ordered-probit model of a board's ratings (see the module docstring).

    ``probs[g, c]`` is P(rating = lo + c | λ = latent[g]); ``prior[k]`` is G on the grid for
    the references of kind k (``RatingPools.kinds``: an original reply, a mined candidate, …,
    each kind's qualities drawn from a distribution of its own)."""

    scale_min: int
    scale_max: int
    sigma: float  # the raters' noise, in rating points (latent scale)
    latent: np.ndarray  # (G,)
    prior: np.ndarray  # (kinds, G): G of each kind of reference
    probs: np.ndarray  # (G, levels)
    rated: int  # references with a rating
    repeated: int  # references with two or more
    ratings: int
    log_likelihood: float
    rater_sd: float = 0.0  # τ: the spread of the raters' own offsets (latent scale), part of σ
    raters: int = 0  # distinct raters behind the ratings (0: not known)

    @cached_property
    def grid_weights(self) -> np.ndarray:
        """The true weight of each grid point: the weight of its expected rating (ascending)."""
        levels = np.arange(self.scale_min, self.scale_max + 1, dtype=np.float64)
        return weight_of(self.probs @ levels, float(self.scale_min), float(self.scale_max))

    @cached_property
    def _log_probs(self) -> np.ndarray:
        out: np.ndarray = np.log(self.probs)
        return out

    def posterior(self, counts: np.ndarray, kinds: np.ndarray | None = None) -> np.ndarray:
        """P(λ_j = latent[g] | reference j's counts of each level): (..., n, G) for counts
        (..., n, levels) of references of ``kinds`` (n,) (default: all of kind 0), each row
        summing to 1."""
        n = counts.shape[-2]
        kind = np.zeros(n, dtype=np.intp) if kinds is None else np.asarray(kinds, dtype=np.intp)
        log_post = counts @ self._log_probs.T + np.log(np.maximum(self.prior[kind], 1e-300))
        log_post -= log_post.max(axis=-1, keepdims=True)
        post = np.exp(log_post)
        post /= post.sum(axis=-1, keepdims=True)
        out: np.ndarray = post
        return out

    def summary(self) -> dict[str, float | int | str]:
        """What a board says of the model (JSON-ready)."""
        return {
            "model": MODEL_VERSION,
            "sigma": round(self.sigma, 4),
            "rated_references": self.rated,
            "repeated_references": self.repeated,
            "ratings": self.ratings,
            "ratings_per_reference": round(self.ratings / max(self.rated, 1), 3),
            "kinds": len(self.prior),
            "rater_offset_sd": round(self.rater_sd, 4),
            "raters": self.raters,
        }


def _em(log_lik: np.ndarray, mult: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, float]:
    """G's maximum likelihood on the grid (EM; ``log_lik[p, g]`` the log-likelihood of rating
    pattern p at grid point g, each pattern counted ``mult`` times) from ``start``, and the
    log-likelihood it reaches."""
    # Each pattern's likelihoods scaled by its largest (a small σ puts most far below 1e-300),
    # and a start with some mass everywhere: EM never revives a point it was given 0 at.
    top = log_lik.max(axis=1, keepdims=True)
    likelihood = np.exp(log_lik - top)
    prior = 0.98 * start + 0.02 / len(start)
    for _ in range(EM_ITERATIONS):
        joint = likelihood * prior
        marginal = joint.sum(axis=1, keepdims=True)
        prior = (mult[:, None] * joint / marginal).sum(axis=0) / mult.sum()
    marginal = (likelihood * prior).sum(axis=1)
    return prior, float(mult @ (np.log(np.maximum(marginal, 1e-300)) + top[:, 0]))


def fit_rater_model(pools: RatingPools, min_repeated: int = MIN_REPEATED) -> RaterModel:
    """The :class:`RaterModel` of ``pools``' ratings (references without ratings take no part).

    σ is chosen by maximum likelihood among :data:`SIGMA_SHARES` of the scale's width, then on a
    finer grid around the best; each kind's G (``pools.kinds``) by EM at each σ. Raises
    :class:`RaterModelUnavailable` when fewer than ``min_repeated`` references have two ratings
    or more (σ cannot be told from the spread of the references' qualities), or the ratings are
    not levels of an integer scale."""
    counts, lo, hi = rating_counts(pools)
    sizes = counts.sum(axis=1)
    repeated = int((sizes >= 2).sum())
    if repeated < min_repeated:
        raise RaterModelUnavailable(
            f"{repeated} reference{'s' if repeated != 1 else ''} rated more than once "
            f"(at least {min_repeated} are needed to measure how much raters disagree)"
        )
    kinds = pools.kind_codes
    n_kinds = int(kinds.max(initial=0)) + 1
    by_kind = []
    for k in range(n_kinds):  # a kind whose references have no rating keeps a flat prior
        mine = (sizes > 0) & (kinds == k)
        if mine.any():
            patterns, mult = np.unique(counts[mine], axis=0, return_counts=True)
            by_kind.append((k, patterns, mult.astype(np.float64)))
    latent = np.linspace(lo - 0.5 * (hi - lo), hi + 0.5 * (hi - lo), LATENT_POINTS)
    flat = np.full((n_kinds, LATENT_POINTS), 1.0 / LATENT_POINTS)
    width = float(hi - lo)

    def fit(sigma: float, start: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, float]:
        probs = _ordinal_probs(latent, sigma, lo, hi)
        found, ll = flat.copy(), 0.0
        for k, patterns, mult in by_kind:  # one σ for all; each kind its own G
            found[k], part = _em(patterns @ np.log(probs).T, mult, start[k])
            ll += part
        return ll, found, probs, sigma

    trials: list[tuple[float, np.ndarray, np.ndarray, float]] = []
    for share in SIGMA_SHARES:
        trials.append(fit(share * width, trials[-1][1] if trials else flat))
    best = max(range(len(trials)), key=lambda t: trials[t][0])
    step = SIGMA_SHARES[1] / SIGMA_SHARES[0]
    for factor in np.geomspace(step**-0.75, step**0.75, 7):
        trials.append(fit(float(SIGMA_SHARES[best] * width * factor), trials[best][1]))
    ll, found, probs, sigma = max(trials, key=lambda t: t[0])
    model = RaterModel(
        lo, hi, sigma, latent, found, probs, int((sizes > 0).sum()), repeated,
        int(sizes.sum()), ll,
    )  # fmt: skip
    if pools.raters is None:
        return model
    # The offsets' spread on the latent scale: the rating scale's, divided by how much a step of
    # λ moves the expected rating where the references are (clipping at the ends flattens it).
    tau, n_raters = rater_offset_sd(pools)
    levels = np.arange(lo, hi + 1, dtype=np.float64)
    slope = np.gradient(probs @ levels, latent)
    shares = np.array([(sizes > 0)[kinds == k].sum() for k in range(n_kinds)], dtype=np.float64)
    mean_slope = float(shares @ found @ slope / max(shares.sum(), 1.0))
    rater_sd = min(tau / max(mean_slope, 0.1), OFFSET_SHARE_MAX * sigma)
    return replace(model, rater_sd=rater_sd, raters=n_raters)


def rater_offset_sd(pools: RatingPools, iterations: int = 200) -> tuple[float, int]:
    """τ, the spread of the raters' own offsets on the rating scale, and the number of raters.

    A rating is its reference's mean plus its rater's offset plus noise; both sets of effects
    are fitted by least squares (alternating means over the references rated more than once:
    a reference rated once says nothing of its rater), and τ² is the offsets' mean square, each
    weighted by the rater's ratings, less what their own sampling noise adds (σ_e²/n_r, the
    share 1/k_j of each rating that its reference's mean absorbs removed). 0 when fewer than two
    raters or no degrees of freedom are left."""
    assert pools.raters is not None
    sizes = np.diff(pools.ptr)
    ref = np.repeat(np.arange(pools.n_refs), sizes)
    keep = sizes[ref] >= 2
    if not keep.any():
        return 0.0, len(np.unique(pools.raters))
    y = pools.values[keep]
    _, ref = np.unique(ref[keep], return_inverse=True)
    who, rater = np.unique(pools.raters[keep], return_inverse=True)
    n_ref = np.bincount(ref).astype(np.float64)
    n_rater = np.bincount(rater).astype(np.float64)
    dof = len(y) - len(n_ref) - len(n_rater) + 1
    if len(who) < 2 or dof <= 0:
        return 0.0, len(who)
    offset = np.zeros(len(who))
    for _ in range(iterations):
        mean = np.bincount(ref, y - offset[rater]) / n_ref
        offset = np.bincount(rater, y - mean[ref]) / n_rater
        offset -= (n_rater @ offset) / n_rater.sum()
    noise = float(((y - mean[ref] - offset[rater]) ** 2).sum() / dof)
    kept_share = np.bincount(rater, 1.0 - 1.0 / n_ref[ref]) / n_rater
    own_noise = noise / (n_rater * np.maximum(kept_share, 1e-9))
    tau2 = float(n_rater @ (offset**2 - own_noise) / n_rater.sum())
    return float(np.sqrt(max(tau2, 0.0))), len(who)


def log_cdfs(posteriors: np.ndarray) -> np.ndarray:
    """log P(w ≤ grid_weights[g]) of each posterior row (..., G)."""
    out: np.ndarray = np.log(np.clip(np.cumsum(posteriors, axis=-1), 1e-300, 1.0))
    return out


def expected_item_max(
    log_cdf: np.ndarray, grid_weights: np.ndarray, item: np.ndarray, floors: np.ndarray
) -> np.ndarray:
    """E[max(max_j w_j, floor_i)] of every item, the w_j independent on the ascending grid.

    Args:
        log_cdf: (..., n_rated, G) each rated reference's :func:`log_cdfs` of its posterior.
        grid_weights: (G,) ascending.
        item: (n_rated,) the item of each rated reference (non-decreasing).
        floors: (n_items,) max(0, the largest fixed weight of the item's unrated references).
    """
    present, starts = np.unique(item, return_index=True)
    total = np.zeros((*log_cdf.shape[:-2], len(floors), len(grid_weights)))
    if len(item):
        total[..., present, :] = np.add.reduceat(log_cdf, starts, axis=-2)
    # P(max ≤ t) = Π_j P(w_j ≤ t). An item without rated references has all its mass at the
    # first point, where the floor replaces it.
    mass = np.diff(np.exp(total), axis=-1, prepend=0.0)
    values = np.maximum(grid_weights[None, :], floors[:, None])
    out: np.ndarray = np.einsum("...ig,ig->...i", mass, values)
    return out


def expected_item_max_of_patterns(
    log_cdf: np.ndarray,
    pattern: np.ndarray,
    grid_weights: np.ndarray,
    item: np.ndarray,
    floors: np.ndarray,
) -> np.ndarray:
    """:func:`expected_item_max` where rated reference j's posterior is ``log_cdf[pattern[j]]``:
    each item's sum of log cdfs is its count of every pattern times the pattern's log cdf (a
    matrix product over the few distinct patterns, not a sum over every reference)."""
    n_items, n_patterns = len(floors), len(log_cdf)
    if n_patterns > PATTERN_PRODUCT_MAX:
        return expected_item_max(log_cdf[pattern], grid_weights, item, floors)
    per_item = np.bincount(item * n_patterns + pattern, minlength=n_items * n_patterns)
    total = per_item.reshape(n_items, n_patterns).astype(np.float64) @ log_cdf
    mass = np.diff(np.exp(total), axis=-1, prepend=0.0)
    values = np.maximum(grid_weights[None, :], floors[:, None])
    out: np.ndarray = np.einsum("ig,ig->i", mass, values)
    return out


def pattern_codes(counts: np.ndarray, kinds: np.ndarray, n_kinds: int) -> np.ndarray:
    """One integer per row of level counts and its reference's kind (mixed radix: rows with
    equal counts of the same kind, equal codes)."""
    radix = int(counts.max(initial=0)) + 1
    powers = radix ** np.arange(counts.shape[-1], dtype=np.int64)
    out: np.ndarray = (counts.astype(np.int64) @ powers) * n_kinds + kinds
    return out
