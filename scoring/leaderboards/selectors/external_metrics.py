"""Reads of the metrics a leaderboard's owner uploaded: the board's list, one to remove, the
ones a study of an output campaign on the board's submissions may use, and each submission's
mean (the board's extra columns)."""

from __future__ import annotations

from collections import defaultdict

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Avg, QuerySet

from annotate.judgments.models import ExternalMetric, ExternalScore
from annotate.rating.models import Campaign
from core.errors import NotFound
from scoring.leaderboards.models import Leaderboard, LeaderboardMetric
from scoring.leaderboards.selectors.leaderboard_table import LeaderboardTable
from scoring.leaderboards.selectors.leaderboards import leaderboard_get_managed

SOURCE_PREFIX = "submission:"  # an evaluated system copied from a submission (eval_systems.py)


def _submission_id(source_ref: str) -> int | None:
    """The submission an evaluated system was copied from ("submission:12"), if any (the
    admin can edit the field, so anything else is no submission rather than an error)."""
    digits = source_ref.removeprefix(SOURCE_PREFIX)
    return int(digits) if source_ref.startswith(SOURCE_PREFIX) and digits.isdigit() else None


def leaderboard_metric_links(*, leaderboard: Leaderboard) -> QuerySet[LeaderboardMetric]:
    return LeaderboardMetric.objects.filter(leaderboard=leaderboard).select_related("metric")


def leaderboard_metric_get_managed(
    *, user: User | AnonymousUser, slug: str, metric_id: int, refusal: str
) -> LeaderboardMetric:
    """The board's uploaded metric `metric_id` (the `ExternalMetric`'s id) for its owner; the
    board's 404 or `refusal` (403) to others, as for the board itself."""
    board = leaderboard_get_managed(user=user, slug=slug, refusal=refusal)
    link = leaderboard_metric_links(leaderboard=board).filter(metric_id=metric_id).first()
    if link is None:
        raise NotFound("No such uploaded metric on this leaderboard.")
    return link


def campaign_board_metrics(*, campaign: Campaign) -> list[ExternalMetric]:
    """The uploaded metrics of the boards whose submissions the campaign rates, by name (the
    first board's when two boards have one of the same name)."""
    refs = campaign.systems.filter(source_ref__startswith=SOURCE_PREFIX)
    found = (_submission_id(ref) for ref in refs.values_list("source_ref", flat=True))
    ids = [pk for pk in found if pk is not None]
    links = LeaderboardMetric.objects.filter(leaderboard__submissions__pk__in=ids).distinct()
    metrics = ExternalMetric.objects.filter(leaderboard_link__in=links)
    by_name: dict[str, ExternalMetric] = {}
    for metric in metrics.order_by("name", "leaderboard_link__leaderboard_id"):
        by_name.setdefault(metric.name, metric)
    return list(by_name.values())


def leaderboard_metric_means(*, leaderboard: Leaderboard) -> dict[int, dict[str, float]]:
    """Submission id → {uploaded metric's name: its mean over the submission's scored items}:
    the system-level score the board shows beside its own (the owner's numbers, labelled so)."""
    metrics = ExternalMetric.objects.filter(leaderboard_link__leaderboard=leaderboard)
    rows = (
        ExternalScore.objects.filter(metric__in=metrics)
        .values_list("metric__name", "system__source_ref")
        .annotate(mean=Avg("score"))
    )
    means: dict[int, dict[str, float]] = defaultdict(dict)
    for name, source_ref, mean in rows:
        if (submission_id := _submission_id(source_ref)) is not None:
            means[submission_id][name] = mean
    return dict(means)


def leaderboard_table_with_uploaded(*, table: LeaderboardTable) -> LeaderboardTable:
    """The table with a column per uploaded metric: each row's mean (the rows are those the
    viewer may see already, so no other submission's number is read into the page)."""
    links = leaderboard_metric_links(leaderboard=table.leaderboard)
    table.uploaded_metrics = [link.metric.name for link in links]
    if table.uploaded_metrics:
        means = leaderboard_metric_means(leaderboard=table.leaderboard)
        for row in table.rows:
            mine = means.get(row.submission.pk, {})
            row.uploaded = [mine.get(name) for name in table.uploaded_metrics]
    return table
