"""The leaderboard's table: its rows with intervals, and rank groups by paired significance.

Everything here reads the per-item statistics the workers stored; nothing is tokenized again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache

from scoring.leaderboards.models import Leaderboard, Score, Submission
from scoring.leaderboards.selectors.leaderboards import (
    latest_per_team,
    leaderboard_entries,
    leaderboard_metric,
    release_scoring_items,
)
from scoring.leaderboards.selectors.raters import BoardStability, view_rank_stability
from scoring.leaderboards.selectors.significance import (
    TEST,
    BoardSignificance,
    correction_text,
    significance_compute,
)
from scoring.leaderboards.selectors.stored import load_matrix
from scoring.metrics import Metric, get_entry, nrefs_label

# Significance is computed once per state of a view of the board (stored or cached).
CACHE_SECONDS = 7 * 24 * 3600


Ranked = tuple[Submission, Score]


@dataclass
class TableRow:
    submission: Submission
    position: int
    group: int | None
    primary: Score | None
    scores: dict[str, Score | None] = field(default_factory=dict)
    # Over the bootstrap replicates (selectors/raters.py): the probability of each rank (1 is
    # best), the expected rank, and the probability that this entry stays ahead of the next
    # ranked one (None for the last, and where the board has no replicates).
    rank_probs: list[float] | None = None
    expected_rank: float | None = None
    order_holds: float | None = None
    # The means of the metrics the board's owner uploaded, in the order of the table's
    # `uploaded_metrics` (None: not scored by that file); filled by the board's page only.
    uploaded: list[float | None] = field(default_factory=list)

    @property
    def companions(self) -> list[Score | None]:
        """Scores of the companion metrics, in the leaderboard's order (primary is first)."""
        return list(self.scores.values())[1:]


@dataclass
class LeaderboardTable:
    leaderboard: Leaderboard
    signature: str
    rows: list[TableRow]
    # Pairs of ranked entries: the family the significance correction is over.
    pairs: int = 0
    # Names of the metrics computed elsewhere that the owner uploaded (selectors/external_metrics).
    uploaded_metrics: list[str] = field(default_factory=list)
    # Whether the rank distributions resample the raters too (a weighted primary metric on a
    # release with ratings), and whether there are any (every ranked entry has replicates).
    stability_with_raters: bool = False
    has_stability: bool = False
    # Ranked entries whose replicates are still to come (their run follows scoring).
    stability_pending: int = 0

    @property
    def test(self) -> str:
        return TEST

    @property
    def correction(self) -> str:
        return correction_text(self.pairs)

    @property
    def metrics(self) -> list[str]:
        return self.leaderboard.metrics

    @property
    def ranks(self) -> list[int]:
        """1 … the number of entries with a rank distribution."""
        return list(range(1, sum(1 for row in self.rows if row.rank_probs is not None) + 1))

    @property
    def companion_metrics(self) -> list[str]:
        return self.metrics[1:]

    @property
    def higher_is_better(self) -> bool:
        return get_entry(self.leaderboard.primary_metric).higher_is_better

    @property
    def primary_weighted(self) -> bool:
        """Whether the primary metric's score depends on the references' weights."""
        return get_entry(self.leaderboard.primary_metric).uses_weights

    @property
    def rater_model(self) -> dict | None:
        """The board's rater model as the primary scores record it (one per board)."""
        for row in self.rows:
            if row.primary is not None and row.primary.rater.get("model"):
                return row.primary.rater["model"]
        return None

    @property
    def rater_unavailable(self) -> str:
        """Why the primary scores have no corrected estimate ("" when they have, or need none)."""
        for row in self.rows:
            if row.primary is not None and row.primary.rater_unavailable:
                return row.primary.rater_unavailable
        return ""


def latest_scores(submission: Submission) -> dict[str, Score]:
    """Each metric's most recent score (a re-scored submission keeps its older rows)."""
    latest: dict[str, Score] = {}
    for score in sorted(submission.scores.all(), key=lambda s: s.created_at):
        latest[score.metric] = score
    return latest


def rank_groups(metric: Metric, stats: Sequence[np.ndarray]) -> list[int]:
    """Rank groups of systems already sorted best first, from their per-item statistics (the
    rule is in selectors/significance.py: the board's one significance answer)."""
    scores = [float(metric.scores_from_stats(matrix.sum(axis=0))) for matrix in stats]
    return significance_compute(metric, stats, scores).groups


def _sort_key(higher_is_better: bool):
    def key(pair: tuple[Submission, Score | None]):
        submission, score = pair
        if score is None:
            return (1, 0.0, submission.submitted_at)
        value = -score.score if higher_is_better else score.score
        return (0, value, submission.submitted_at)  # ties: the earlier submission first

    return key


def _significance_cache_key(leaderboard: Leaderboard, ranked: list[Ranked]) -> str:
    state = "|".join(
        f"{s.pk}:{s.finished_at.isoformat() if s.finished_at else ''}:{score.pk}"
        for s, score in ranked
    )
    digest = hashlib.sha256(state.encode()).hexdigest()[:32]
    return f"leaderboard-significance:{leaderboard.pk}:{digest}"


def compute_significance(leaderboard: Leaderboard, ranked: list[Ranked]) -> BoardSignificance:
    """Every pair's test of the ranked entries, from their stored statistics (the bootstrap)."""
    metric = leaderboard_metric(leaderboard, leaderboard.primary_metric)
    stats = [load_matrix(score.stats_file) for _, score in ranked]
    return significance_compute(metric, stats, [score.score for _, score in ranked])


def rank_groups_state(ranked: list[Ranked]) -> list[list[int]]:
    """What rank groups depend on: the entries, best first, and the score of each."""
    return [[submission.pk, score.pk] for submission, score in ranked]


def _stored(leaderboard: Leaderboard, ranked: list[Ranked]) -> BoardSignificance | None:
    state = rank_groups_state(ranked)
    for stored in leaderboard.rank_groups or []:
        if stored.get("ranked") == state and "p" in stored:
            return BoardSignificance(stored["p"])
    return None


def view_significance(*, leaderboard: Leaderboard, ranked: list[Ranked]) -> BoardSignificance:
    """The significance answers of this view of the board: as stored when the last score
    landed, else computed once and cached for this state of the view."""
    if not ranked:
        return BoardSignificance([])
    found = _stored(leaderboard, ranked)
    if found is not None:
        return found
    key = _significance_cache_key(leaderboard, ranked)
    cached = cache.get(key)
    if cached is None or len(cached) != len(ranked):
        cached = compute_significance(leaderboard, ranked).p
        cache.set(key, cached, CACHE_SECONDS)
    return BoardSignificance(cached)


def leaderboard_signature(*, leaderboard: Leaderboard) -> str:
    """The primary metric's signature: as stored with the scores, else computed once."""
    stored = (
        Score.objects.filter(submission__leaderboard=leaderboard, metric=leaderboard.primary_metric)
        .order_by("-created_at")
        .values_list("signature", flat=True)
        .first()
    )
    if stored:
        return stored
    key = f"leaderboard-signature:{leaderboard.pk}"
    signature = cache.get(key)
    if signature is None:
        items = release_scoring_items(release=leaderboard.release, split=leaderboard.split)
        metric = leaderboard_metric(leaderboard, leaderboard.primary_metric)
        signature = metric.signature(nrefs_label([ref for _, ref in items]))
        cache.set(key, signature, CACHE_SECONDS)
    return signature


def ranked_entries(
    *, leaderboard: Leaderboard, user: User | AnonymousUser
) -> tuple[list[tuple[Submission, Score | None]], list[Ranked]]:
    """The entries this user sees, best first, with their primary scores; and those of them
    that can be ranked (scored, with statistics)."""
    entries = list(leaderboard_entries(leaderboard=leaderboard, user=user))
    if leaderboard.split != "test":
        entries = latest_per_team(entries)
    for submission in entries:
        submission.leaderboard = leaderboard  # spares a query per row
    primary = leaderboard.primary_metric
    pairs = [(s, latest_scores(s).get(primary)) for s in entries]
    pairs.sort(key=_sort_key(get_entry(primary).higher_is_better))
    ranked = [(s, score) for s, score in pairs if score is not None and score.stats_file]
    return pairs, ranked


def leaderboard_table(*, leaderboard: Leaderboard, user: User | AnonymousUser) -> LeaderboardTable:
    """The rows this user may see, best first, with their rank groups (as stored when the last
    score landed; computed only for a view of the board that was not stored)."""
    pairs, ranked = ranked_entries(leaderboard=leaderboard, user=user)
    significance = view_significance(leaderboard=leaderboard, ranked=ranked)
    groups = dict(zip([s.pk for s, _ in ranked], significance.groups, strict=True))
    rows = [
        TableRow(
            submission=s,
            position=position,
            group=groups.get(s.pk),
            primary=score,
            scores={name: latest_scores(s).get(name) for name in leaderboard.metrics},
        )
        for position, (s, score) in enumerate(pairs, start=1)
    ]
    signature = leaderboard_signature(leaderboard=leaderboard)
    table = LeaderboardTable(leaderboard, signature, rows, significance.pairs)
    _add_stability(table, view_rank_stability(leaderboard=leaderboard, ranked=ranked))
    return table


def _add_stability(table: LeaderboardTable, found: BoardStability | None) -> None:
    ranked = [(row, row.primary) for row in table.rows if row.primary and row.primary.stats_file]
    ranked_rows = [row for row, _ in ranked]
    table.stability_pending = sum(1 for _, score in ranked if not score.replicates_file)
    if found is None:
        return
    stability = found.stability
    for k, row in enumerate(ranked_rows):
        row.rank_probs = [float(p) for p in stability.rank_probs[k]]
        row.expected_rank = float(stability.expected_rank[k])
        if k < len(stability.neighbour_order):
            row.order_holds = float(stability.neighbour_order[k])
    table.has_stability = True
    table.stability_with_raters = found.with_raters
