"""A score's bootstrap replicates, kept so that a board can say how stable its ranking is.

Every score keeps the scores of the same 1,000 resampled corpora as its item interval (the seed
and item draws are `bootstrap_ci`'s). A weighted metric's replicates also resample each
reference's ratings (the two-level bootstrap, from its weight profile and the release's
ratings): the interval with rater uncertainty. The draws depend only on the board (its items and
ratings), never on the submission, so every entry's replicates are paired with every other's and
a view of the board stacks them to get each entry's rank distribution — nothing is recomputed
when another score lands.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.leaderboards.services.references import Chunk
from scoring.metrics import (
    Metric,
    RatingPools,
    bootstrap_replicates,
    percentile_bounds,
    two_level_bootstrap,
)


@dataclass(frozen=True)
class Replicates:
    """The replicate scores, and their 95% interval when they include the raters."""

    scores: np.ndarray
    rater_interval: tuple[float, float] | None


def score_replicates(
    metric: Metric, chunk: Chunk, pools: RatingPools | None, n_samples: int
) -> Replicates:
    """Two-level replicates for a weighted metric whose references have ratings; the item
    bootstrap's replicates otherwise (their interval is the score's own)."""
    if chunk.profile is None or pools is None:
        return Replicates(bootstrap_replicates(metric, chunk.stats, n_samples=n_samples), None)
    scores = two_level_bootstrap(metric, chunk.profile, pools, n_samples=n_samples)
    return Replicates(scores, percentile_bounds(scores))
