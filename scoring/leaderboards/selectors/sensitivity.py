"""What a dataset's leaderboards tell adaptive rating: for each live reference, how much the
score differences of their close pairs move with its weight (annotate/rating/adaptive_math.py).

For every board of the dataset ranked by a weighted metric, each ranked entry's gradient
∂score/∂w_r comes from its stored weight profile at the release's weights (the library's
`score_gradient`; nothing is tokenized), each pair of neighbours is weighted by how close it is
(2·min(P, 1 − P) with P the share of bootstrap replicates keeping its order), and
Σ_pairs closeness · (∂Δ/∂w_r)² is credited to the live reference r was frozen from.
"""

from __future__ import annotations

import numpy as np

from annotate.rating.adaptive_math import closeness, pair_sensitivity
from annotate.rating.sensitivity_sources import SensitivityReport
from scoring.leaderboards.models import Leaderboard
from scoring.leaderboards.selectors.leaderboard_table import ranked_entries
from scoring.leaderboards.selectors.leaderboards import leaderboard_metric
from scoring.leaderboards.selectors.raters import board_references, view_rank_stability
from scoring.leaderboards.selectors.stored import load_profile
from scoring.metrics import get_entry, score_gradient


def board_sensitivity(*, leaderboard: Leaderboard) -> SensitivityReport:
    """One board's report: empty unless two or more entries it ranks (as its owner sees it)
    have weight profiles."""
    report = SensitivityReport()
    if not get_entry(leaderboard.primary_metric).uses_weights:
        return report
    _, ranked = ranked_entries(leaderboard=leaderboard, user=leaderboard.owner)
    ranked = [(s, score) for s, score in ranked if score.profile_file]
    if len(ranked) < 2:
        return report
    metric = leaderboard_metric(leaderboard, leaderboard.primary_metric)
    refs = board_references(leaderboard=leaderboard)
    gradients = np.stack(
        [
            score_gradient(metric, load_profile(score.profile_file), refs.weights)
            for _, score in ranked
        ]
    )
    stability = view_rank_stability(leaderboard=leaderboard, ranked=ranked)
    holds = (
        stability.stability.neighbour_order
        if stability is not None
        else np.full(len(ranked) - 1, 0.5)  # no replicates: every pair counts as in doubt
    )
    weights = closeness(holds)
    terms = pair_sensitivity(gradients, [(k, k + 1) for k in range(len(ranked) - 1)], weights)
    for source_id, value in zip(refs.source_ids.tolist(), terms.tolist(), strict=True):
        if source_id >= 0 and value > 0:
            report.terms[source_id] = report.terms.get(source_id, 0.0) + value
    report.boards.append(
        {
            "name": leaderboard.name,
            "slug": leaderboard.slug,
            "pairs": int(np.count_nonzero(weights)),
            # The pair most in doubt: its share of replicates keeping the order.
            "closest_pair_order_holds": float(holds[int(np.argmax(weights))]),
        }
    )
    return report


def dataset_sensitivity(dataset_id: int) -> SensitivityReport:
    """Every board of the dataset's releases (the source adaptive rating asks)."""
    report = SensitivityReport()
    boards = Leaderboard.objects.filter(release__dataset_id=dataset_id).select_related(
        "release", "owner"
    )
    for board in boards:
        report.add(board_sensitivity(leaderboard=board))
    return report
