"""From Likert ratings to ΔBLEU weights (no database): the formula, intervals, z-normalisation.

A mean rating m on the scale [lo, hi] maps linearly onto [-1, +1]:
    w = 2 (m - lo) / (hi - lo) - 1        (on 1-5: w = (m - 3) / 2)
so the scale's lowest point is -1, its middle 0 and its top +1 (Galley et al. 2015, sec. 4).
The formula is the metric library's `weight_of`, so a release's weights and the weights its
ratings are resampled into on a leaderboard are computed by the same float operations.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from scoring.metrics import weight_of

__all__ = ["summarise", "values_by_reference", "weight_of", "z_rescaled"]

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 12345


def summarise(scores: Sequence[float], lo: int, hi: int) -> dict[str, float | int | None]:
    """n, mean, sample SD, weight and a 95% bootstrap interval of the weight.

    The interval is the 2.5th and 97.5th percentiles of the weights of 1,000 resampled means
    (fixed seed, so the same ratings always give the same interval).
    """
    values = np.asarray(scores, dtype=float)
    if values.size == 0:
        return {"n": 0, "mean": None, "sd": None, "weight": None, "ci_low": None, "ci_high": None}
    mean = float(values.mean())
    sd = float(values.std(ddof=1)) if values.size > 1 else 0.0
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, values.size, size=(BOOTSTRAP_RESAMPLES, values.size))
    means = values[picks].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {
        "n": int(values.size),
        "mean": mean,
        "sd": sd,
        "weight": weight_of(mean, lo, hi),
        "ci_low": weight_of(float(low), lo, hi),
        "ci_high": weight_of(float(high), lo, hi),
    }


def z_rescaled(scores: np.ndarray, raters: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Each score z-normalised within its rater, then put back on the scale [lo, hi].

    A lenient rater's 4 and a strict rater's 3 can mean the same; z-scores remove each rater's
    own mean and spread. To keep the weight formula, z is mapped back with the pooled mean and
    SD of all scores and clipped to the scale. A rater whose scores never vary gets z = 0.
    """
    scores = np.asarray(scores, dtype=float)
    out = np.empty_like(scores)
    pooled_mean = scores.mean() if scores.size else 0.0
    pooled_sd = scores.std() if scores.size else 0.0
    for rater in np.unique(raters):
        mine = raters == rater
        sd = scores[mine].std()
        z = (scores[mine] - scores[mine].mean()) / sd if sd > 0 else np.zeros(mine.sum())
        out[mine] = pooled_mean + z * pooled_sd
    return np.clip(out, lo, hi)


def values_by_reference(
    rows: Sequence[tuple[int, int, int]], lo: int, hi: int
) -> tuple[dict[int, list[int]], dict[int, list[float]]]:
    """Each reference's scores in the order of ``rows`` (reference, rater, score), and the same
    scores z-normalised per rater over all the rows and put back on the scale (`z_rescaled`).

    A reference's raw weight is ``weight_of(mean(raw))`` and its z-weight
    ``weight_of(mean(z))``: these lists are what a rater-level bootstrap resamples.
    """
    raw: dict[int, list[int]] = defaultdict(list)
    z_values: dict[int, list[float]] = defaultdict(list)
    if not rows:
        return raw, z_values
    data = np.array(rows, dtype=float)
    rescaled = z_rescaled(data[:, 2], data[:, 1], lo, hi)
    for (reference_id, _, score), value in zip(rows, rescaled, strict=True):
        raw[reference_id].append(score)
        z_values[reference_id].append(float(value))
    return raw, z_values
