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
    rater_replicates,
)


@dataclass(frozen=True)
class Replicates:
    """The replicate scores, their 95% interval when they include the raters, and how much the
    two-level replicates were moved to centre them where the items' are (the library's
    `rater_replicates`: a maximum over noisy weights biases them upward)."""

    scores: np.ndarray
    rater_interval: tuple[float, float] | None
    shift: float | None = None


def score_replicates(
    metric: Metric, chunk: Chunk, pools: RatingPools | None, n_samples: int
) -> Replicates:
    """Two-level replicates for a weighted metric whose references have ratings (recentred on
    the item bootstrap's, from the release's own weights); the item bootstrap's otherwise
    (their interval is the score's own)."""
    if chunk.profile is None or pools is None:
        return Replicates(bootstrap_replicates(metric, chunk.stats, n_samples=n_samples), None)
    found = rater_replicates(
        metric, chunk.profile, pools, n_samples=n_samples, weights=pools.base_weights
    )
    return Replicates(found.scores, percentile_bounds(found.scores), found.shift)
