"""Comparing two submissions: the board's significance answer for the pair, each metric's
paired bootstrap, and item by item.

The item-by-item view shows references and per-item statistics (which reveal reference
lengths and matches), so callers offer it only when `references_visible` says so.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import numpy as np
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet

from annotate.releases.models import ReleaseItem
from core.errors import NotFound
from scoring.leaderboards.models import Leaderboard, Score, Submission, SubmissionStatus
from scoring.leaderboards.selectors.leaderboard_table import (
    CACHE_SECONDS,
    latest_scores,
    leaderboard_table,
    ranked_entries,
    view_significance,
)
from scoring.leaderboards.selectors.leaderboards import (
    leaderboard_can_manage,
    leaderboard_entries,
    leaderboard_metric,
    release_scoring_items,
)
from scoring.leaderboards.selectors.significance import (
    RESAMPLES,
    PairAnswer,
    pair_alone,
    pair_on_board,
)
from scoring.leaderboards.selectors.stored import load_matrix, submission_hypotheses
from scoring.metrics import Metric, RefItem, get_entry, paired_bootstrap

ITEMS_PER_PAGE = 20


@dataclass(frozen=True)
class MetricComparison:
    metric: str
    display_name: str
    higher_is_better: bool
    score_a: float
    score_b: float
    # The pair's own paired bootstrap p-value (1 for equal scores), before any correction: the
    # board's answer (see Comparison.answer) corrects it for the board's family of pairs, for
    # the primary metric.
    p_bootstrap: float
    ranks_the_board: bool

    @property
    def difference(self) -> float:
        return self.score_a - self.score_b


@dataclass(frozen=True)
class Comparison:
    metrics: list[MetricComparison]
    # The one significance answer for the pair (primary metric), as the board gives it; None
    # when one of them has no statistics of the primary metric.
    answer: PairAnswer | None


@dataclass(frozen=True)
class ItemSide:
    """One item with both hypotheses, its weighted references and per-item statistics."""

    item: ReleaseItem
    refs: RefItem
    hyp_a: str
    hyp_b: str
    stats_a: list[float]
    stats_b: list[float]
    score_a: float
    score_b: float


def comparable_submissions(
    *, leaderboard: Leaderboard, user: User | AnonymousUser
) -> QuerySet[Submission]:
    """Finished submissions the user may compare: the board's entries and their team's own."""
    finished = leaderboard.submissions.filter(status=SubmissionStatus.FINISHED)
    if leaderboard_can_manage(user=user, leaderboard=leaderboard):
        return finished.select_related("team")
    shown = leaderboard_entries(leaderboard=leaderboard, user=user).values("pk")
    mine = Q(team__members=user) if user.is_authenticated else Q(pk__in=[])
    return finished.filter(Q(pk__in=shown) | mine).select_related("team").distinct()


def comparison_submission(
    *, leaderboard: Leaderboard, user: User | AnonymousUser, submission_id: object
) -> Submission:
    """A submission to compare, or 404 when it is not one this user may see on this board."""
    try:
        pk = int(str(submission_id))
    except ValueError:
        raise NotFound("No such submission.") from None
    submission = comparable_submissions(leaderboard=leaderboard, user=user).filter(pk=pk).first()
    if submission is None:
        raise NotFound("No such submission.")
    return submission


def comparison_pair(
    *, leaderboard: Leaderboard, user: User | AnonymousUser, a_id: object, b_id: object
) -> tuple[Submission | None, Submission | None]:
    """The submissions named a and b (404 if not comparable for this user); by default the
    best entry against the best baseline (or the runner-up when there is no baseline)."""
    rows = [r.submission for r in leaderboard_table(leaderboard=leaderboard, user=user).rows]
    named = [
        comparison_submission(leaderboard=leaderboard, user=user, submission_id=pk) if pk else None
        for pk in (a_id, b_id)
    ]
    a, b = named
    if b is None:
        # The best baseline other than `a` (the board's row links name its entry as `a`, and
        # the top row may be the baseline itself), else the best other entry.
        others = [s for s in rows if s != a]
        b = next((s for s in others if s.is_baseline), others[0] if others else None)
    if a is None:
        a = next((s for s in rows if s != b), None)
    return a, b


def _stats(submission: Submission, metric: str) -> tuple[Score, np.ndarray] | None:
    score = latest_scores(submission).get(metric)
    if score is None or not score.stats_file:
        return None
    return score, load_matrix(score.stats_file)


def _compare_metric(
    leaderboard: Leaderboard, name: str, a: Submission, b: Submission
) -> MetricComparison | None:
    loaded_a, loaded_b = _stats(a, name), _stats(b, name)
    if loaded_a is None or loaded_b is None or loaded_a[1].shape != loaded_b[1].shape:
        return None
    metric = leaderboard_metric(leaderboard, name)
    test = paired_bootstrap(metric, loaded_a[1], loaded_b[1], n_samples=RESAMPLES)
    entry = get_entry(name)
    return MetricComparison(
        name,
        entry.display_name,
        entry.higher_is_better,
        loaded_a[0].score,
        loaded_b[0].score,
        test.rank_p_value,  # 1 for equal scores, as the board's answer gives it
        name == leaderboard.primary_metric,
    )


def _metric_comparisons(
    leaderboard: Leaderboard, a: Submission, b: Submission
) -> list[MetricComparison]:
    state = f"{a.pk}:{a.finished_at}:{b.pk}:{b.finished_at}:{leaderboard.metrics}"
    key = f"leaderboard-compare:{leaderboard.pk}:{hashlib.sha256(state.encode()).hexdigest()}"
    result = cache.get(key)
    if result is None:
        found = [_compare_metric(leaderboard, name, a, b) for name in leaderboard.metrics]
        result = [m for m in found if m is not None]
        cache.set(key, result, CACHE_SECONDS)
    return result


def pair_answer(
    *, leaderboard: Leaderboard, user: User | AnonymousUser, a: Submission, b: Submission
) -> PairAnswer | None:
    """The board's significance answer for a and b as this user's view of the board ranks
    them; a single test, uncorrected, when they are not both ranked on it."""
    _, ranked = ranked_entries(leaderboard=leaderboard, user=user)
    positions = {submission.pk: k for k, (submission, _) in enumerate(ranked)}
    if a.pk in positions and b.pk in positions:
        significance = view_significance(leaderboard=leaderboard, ranked=ranked)
        return pair_on_board(significance, significance.groups, positions[a.pk], positions[b.pk])
    primary = leaderboard.primary_metric
    loaded_a, loaded_b = _stats(a, primary), _stats(b, primary)
    if loaded_a is None or loaded_b is None or loaded_a[1].shape != loaded_b[1].shape:
        return None
    metric = leaderboard_metric(leaderboard, primary)
    scores = (loaded_a[0].score, loaded_b[0].score)
    return pair_alone(metric, loaded_a[1], loaded_b[1], scores)


def compare_submissions(
    *, leaderboard: Leaderboard, user: User | AnonymousUser, a: Submission, b: Submission
) -> Comparison:
    """The board's answer for the pair, and each metric's paired bootstrap of a against b."""
    answer = pair_answer(leaderboard=leaderboard, user=user, a=a, b=b)
    metrics = _metric_comparisons(leaderboard, a, b)
    if answer is not None:  # the primary metric's p-value is the answer's, ties included
        metrics = [
            replace(m, p_bootstrap=answer.p_value) if m.ranks_the_board else m for m in metrics
        ]
    return Comparison(metrics, answer)


def stat_labels(metric: Metric, n_stats: int) -> list[str]:
    """Column names of a metric's statistics rows, where the layout is known (BLEU family)."""
    order = getattr(metric, "max_order", None)
    if isinstance(order, int) and n_stats == 2 + 2 * order:
        return [
            "hyp len",
            "ref len",
            *(f"match {n}" for n in range(1, order + 1)),
            *(f"total {n}" for n in range(1, order + 1)),
        ]
    return [f"s{k}" for k in range(1, n_stats + 1)]


def compare_items(
    *, leaderboard: Leaderboard, a: Submission, b: Submission, page_number: str | None
) -> tuple[Page, list[ItemSide], list[str]]:
    """One page of items side by side, with the primary metric's statistics and labels.

    Call only when the user may see the leaderboard's references.
    """
    scored = release_scoring_items(release=leaderboard.release, split=leaderboard.split)
    ids = [ref.id for _, ref in scored]
    metric = leaderboard_metric(leaderboard, leaderboard.primary_metric)
    loaded_a = _stats(a, leaderboard.primary_metric)
    loaded_b = _stats(b, leaderboard.primary_metric)
    n_stats = loaded_a[1].shape[1] if loaded_a else 0
    empty = np.zeros((len(ids), n_stats))
    stats_a = loaded_a[1] if loaded_a else empty
    stats_b = loaded_b[1] if loaded_b else empty
    page = Paginator(range(len(scored)), ITEMS_PER_PAGE).get_page(page_number)
    hyps_a, hyps_b = submission_hypotheses(a, ids), submission_hypotheses(b, ids)
    sides = [
        ItemSide(
            scored[i][0],
            scored[i][1],
            hyps_a[i],
            hyps_b[i],
            _rounded(stats_a[i]),
            _rounded(stats_b[i]),
            float(metric.scores_from_stats(stats_a[i])),
            float(metric.scores_from_stats(stats_b[i])),
        )
        for i in page.object_list
    ]
    return page, sides, stat_labels(metric, n_stats)


def _rounded(row: np.ndarray) -> list[float]:
    # Totals scaled by a weight carry float noise (2.4000000000000004) nobody needs to read.
    return [round(float(v), 4) for v in row]
