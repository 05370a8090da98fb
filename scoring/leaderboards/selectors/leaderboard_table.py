"""The leaderboard's table: its rows with intervals, and rank groups by paired significance.

Everything here reads the per-item statistics the workers stored; nothing is tokenized again.
"""

from __future__ import annotations

import hashlib
import math
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
from scoring.leaderboards.selectors.stored import load_matrix
from scoring.metrics import Metric, get_entry, nrefs_label, paired_bootstrap

SIGNIFICANCE_LEVEL = 0.05
# Paired bootstrap resamples per test in the rank grouping (sacrebleu's default); the result is
# cached per leaderboard state, so the cost is paid once per new entry.
GROUP_RESAMPLES = 1000
CACHE_SECONDS = 7 * 24 * 3600


Ranked = tuple[Submission, Score]


@dataclass
class TableRow:
    submission: Submission
    position: int
    group: int | None
    primary: Score | None
    scores: dict[str, Score | None] = field(default_factory=dict)

    @property
    def companions(self) -> list[Score | None]:
        """Scores of the companion metrics, in the leaderboard's order (primary is first)."""
        return list(self.scores.values())[1:]


@dataclass
class LeaderboardTable:
    leaderboard: Leaderboard
    signature: str
    rows: list[TableRow]

    @property
    def metrics(self) -> list[str]:
        return self.leaderboard.metrics

    @property
    def companion_metrics(self) -> list[str]:
        return self.metrics[1:]

    @property
    def higher_is_better(self) -> bool:
        return get_entry(self.leaderboard.primary_metric).higher_is_better

    @property
    def best_baseline(self) -> Submission | None:
        """The default comparison: the best-ranked baseline."""
        return next((r.submission for r in self.rows if r.submission.is_baseline), None)


def latest_scores(submission: Submission) -> dict[str, Score]:
    """Each metric's most recent score (a re-scored submission keeps its older rows)."""
    latest: dict[str, Score] = {}
    for score in sorted(submission.scores.all(), key=lambda s: s.created_at):
        latest[score.metric] = score
    return latest


def rank_groups(metric: Metric, stats: Sequence[np.ndarray]) -> list[int]:
    """Rank groups of systems already sorted best first, from their per-item statistics.

    Rule: walk down the sorted list; the first system leads group 1. Each next system is
    compared with the leader of the current group by a paired bootstrap test (Koehn 2004,
    1,000 resamples, sacrebleu's p-value); p < 0.05 starts a new group led by that system,
    otherwise it joins the current group. Comparing with the group's leader (not the previous
    system) keeps a chain of small steps from merging systems that differ significantly.
    Equal corpus scores always share a group: sacrebleu's p-value (following multeval) is
    1/(n+1) for a zero difference, on purpose, yet equal scores give no ranking evidence.
    Returns the 1-based group of each system, in order.
    """
    groups: list[int] = []
    leader: np.ndarray | None = None
    for matrix in stats:
        if leader is None:
            groups.append(1)
            leader = matrix
            continue
        if matrix.shape != leader.shape:
            different = True  # not the same items: they cannot share a group
        else:
            test = paired_bootstrap(metric, leader, matrix, n_samples=GROUP_RESAMPLES)
            tied = math.isclose(test.baseline_score, test.system_score, abs_tol=1e-12)
            different = not tied and test.p_value < SIGNIFICANCE_LEVEL
        if different:
            leader = matrix
        groups.append(groups[-1] + 1 if different else groups[-1])
    return groups


def _sort_key(higher_is_better: bool):
    def key(pair: tuple[Submission, Score | None]):
        submission, score = pair
        if score is None:
            return (1, 0.0, submission.submitted_at)
        value = -score.score if higher_is_better else score.score
        return (0, value, submission.submitted_at)  # ties: the earlier submission first

    return key


def _groups_cache_key(leaderboard: Leaderboard, ranked: list[Ranked]) -> str:
    state = "|".join(
        f"{s.pk}:{s.finished_at.isoformat() if s.finished_at else ''}:{score.pk}"
        for s, score in ranked
    )
    digest = hashlib.sha256(state.encode()).hexdigest()[:32]
    return f"leaderboard-groups:{leaderboard.pk}:{digest}"


def compute_rank_groups(leaderboard: Leaderboard, ranked: list[Ranked]) -> list[int]:
    """Rank groups of the ranked entries, from their stored statistics (the bootstraps)."""
    metric = leaderboard_metric(leaderboard, leaderboard.primary_metric)
    return rank_groups(metric, [load_matrix(score.stats_file) for _, score in ranked])


def rank_groups_state(ranked: list[Ranked]) -> list[list[int]]:
    """What rank groups depend on: the entries, best first, and the score of each."""
    return [[submission.pk, score.pk] for submission, score in ranked]


def _stored_groups(leaderboard: Leaderboard, ranked: list[Ranked]) -> list[int] | None:
    state = rank_groups_state(ranked)
    for stored in leaderboard.rank_groups or []:
        if stored.get("ranked") == state:
            return list(stored["groups"])
    return None


def _cached_groups(leaderboard: Leaderboard, ranked: list[Ranked]) -> list[int]:
    key = _groups_cache_key(leaderboard, ranked)
    groups = cache.get(key)
    if groups is None or len(groups) != len(ranked):
        groups = compute_rank_groups(leaderboard, ranked)
        cache.set(key, groups, CACHE_SECONDS)
    return groups


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
    found = _stored_groups(leaderboard, ranked) if ranked else []
    if found is None:
        found = _cached_groups(leaderboard, ranked)
    groups = dict(zip([s.pk for s, _ in ranked], found, strict=True))
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
    return LeaderboardTable(leaderboard, leaderboard_signature(leaderboard=leaderboard), rows)
