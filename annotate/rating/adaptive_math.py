"""Where the next rating helps the leaderboards most (no database; the bench uses it too).

Model. A reference's true mean rating μ_r has a prior N(m₀, τ²) over the campaign's references
(τ²: the spread of references' means), and each rating is μ_r plus noise of variance σ² (the
raters' disagreement within a reference). After n ratings the posterior variance of μ_r is

    V(n) = 1 / (1/τ² + n/σ²) = σ² / (a + n),        a = σ² / τ²,

and its weight w_r = c (μ_r − lo) − 1, c = 2 / (hi − lo), has variance c² V(n). One more rating
removes c² (V(n) − V(n+1)) = c² σ² / ((a + n)(a + n + 1)) of it.

A leaderboard pair of systems (A, B) whose order is in doubt moves its score difference
Δ = S_A − S_B by about (∂Δ/∂w_r) δw_r when w_r moves by δw_r, so the variance of Δ that one
more rating of r removes is (∂Δ/∂w_r)² c² σ_r² / ((a + n)(a + n + 1)). Summed over the close
pairs of every board that uses the dataset, each pair weighted by how close it is, this is the
value of the next rating of r. It is written as

    value(r) = sensitivity_r / ((a + n_r)(a + n_r + 1)),
    sensitivity_r = c² σ_r² Σ_pairs closeness_p (∂Δ_p/∂w_r)²,

so that `sensitivity` (which changes only when boards or ratings change) can be stored and the
denominator follows each rating at once (the assignment query computes it from the slot's count).
σ_r² is the reference's own rating variance shrunk towards the pooled σ² (a reference whose raters
disagree is worth more), and closeness_p = 2·min(P, 1 − P) with P the bootstrap probability that
the pair keeps its order: 1 for a coin flip, 0 for a settled pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# Pseudo-ratings of pooled variance mixed into each reference's own variance: with two or three
# ratings a reference's sample variance alone is too noisy to steer by.
SHRINK_PSEUDO_RATINGS = 2.0
# Floors, on the 1-5 scale's units squared: identical ratings so far do not prove that the next
# rater will agree, and a campaign of identical means still has something to learn.
MIN_RATING_VARIANCE = 0.25
MIN_PRIOR_VARIANCE = 0.05


@dataclass(frozen=True)
class RatingModel:
    """The campaign-level quantities of the model: pooled σ², prior τ² and a = σ²/τ²."""

    sigma2: float
    tau2: float

    @property
    def a(self) -> float:
        return self.sigma2 / self.tau2


def rating_model(values: Sequence[Sequence[float]]) -> RatingModel:
    """σ² pooled within references (each with ≥ 2 ratings) and τ² between their means
    (the variance of the means less the part their own noise explains), each floored."""
    within = [np.asarray(v, dtype=float) for v in values if len(v) >= 2]
    dof = sum(len(v) - 1 for v in within)
    ss = sum(float(((v - v.mean()) ** 2).sum()) for v in within)
    sigma2 = max(ss / dof if dof else 1.0, MIN_RATING_VARIANCE)
    means = np.array([np.mean(v) for v in values if len(v)], dtype=float)
    counts = np.array([len(v) for v in values if len(v)], dtype=float)
    # With fewer than two rated references there is no spread to read: a wide prior.
    tau2 = float(means.var(ddof=1) - sigma2 * np.mean(1.0 / counts)) if len(means) >= 2 else 1.0
    return RatingModel(sigma2, max(tau2, MIN_PRIOR_VARIANCE))


def reference_variances(values: Sequence[Sequence[float]], model: RatingModel) -> np.ndarray:
    """σ_r²: each reference's rating variance shrunk towards the pooled σ²."""
    out = np.empty(len(values))
    k = SHRINK_PSEUDO_RATINGS
    for r, v in enumerate(values):
        x = np.asarray(v, dtype=float)
        ss = float(((x - x.mean()) ** 2).sum()) if len(x) >= 2 else 0.0
        dof = max(len(x) - 1, 0)
        out[r] = max((ss + k * model.sigma2) / (dof + k), MIN_RATING_VARIANCE)
    return out


def closeness(order_holds: np.ndarray) -> np.ndarray:
    """2·min(P, 1 − P) for each pair's probability P of keeping its order."""
    p = np.clip(np.asarray(order_holds, dtype=float), 0.0, 1.0)
    out: np.ndarray = 2.0 * np.minimum(p, 1.0 - p)
    return out


def pair_sensitivity(gradients: np.ndarray, pairs: Sequence[tuple[int, int]], weights: np.ndarray):
    """Σ_p weight_p (∂S_a/∂w − ∂S_b/∂w)² over the pairs (a, b) of systems, per reference.

    Args:
        gradients: (n_systems, n_refs) ∂score/∂w_r of each system.
        pairs: indices of the systems compared.
        weights: closeness of each pair.
    """
    grads = np.asarray(gradients, dtype=float)
    out = np.zeros(grads.shape[1] if grads.ndim == 2 else 0)
    for (a, b), weight in zip(pairs, weights, strict=True):
        if weight > 0:
            out += weight * (grads[a] - grads[b]) ** 2
    return out


def sensitivities(
    pair_terms: np.ndarray, variances: np.ndarray, scale_min: int, scale_max: int
) -> np.ndarray:
    """sensitivity_r = c² σ_r² Σ_p closeness_p (∂Δ_p/∂w_r)² (the module docstring)."""
    c = 2.0 / (scale_max - scale_min)
    out: np.ndarray = c * c * np.asarray(variances, dtype=float) * np.asarray(pair_terms)
    return out


def rating_value(sensitivity: np.ndarray, n: np.ndarray, a: float) -> np.ndarray:
    """The variance of the close pairs' differences that one more rating removes."""
    n = np.asarray(n, dtype=float)
    out: np.ndarray = np.asarray(sensitivity, dtype=float) / ((a + n) * (a + n + 1.0))
    return out
