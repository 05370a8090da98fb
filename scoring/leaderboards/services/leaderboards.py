"""Writes of leaderboards: open one on a frozen release with a checked metric configuration;
its owner's settings."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count

from annotate.releases.models import Release, ReleaseStatus
from core.dispatch import dispatch
from core.inserts import insert_checked
from scoring.leaderboards.models import Leaderboard
from scoring.leaderboards.selectors.leaderboards import (
    leaderboard_can_manage,
    release_scoring_items,
)
from scoring.leaderboards.selectors.submissions import submissions_counted
from scoring.metrics import MetricInputError, entries, get_metric


def _check_metrics(primary: str, options: dict, companions: list[str]) -> None:
    known = entries()
    if primary not in known:
        raise ValidationError({"primary_metric": f"Unknown metric; use one of {', '.join(known)}."})
    try:
        get_metric(primary, **options)
    except MetricInputError as exc:
        raise ValidationError({"metric_options": str(exc)}) from None
    unknown = [name for name in companions if name not in known]
    if unknown:
        raise ValidationError({"companion_metrics": f"Unknown metrics: {', '.join(unknown)}."})


def leaderboard_create(
    *,
    owner: User,
    release: Release,
    split: str,
    name: str,
    slug: str,
    primary_metric: str = "dbleu",
    metric_options: dict | None = None,
    companion_metrics: list[str] | None = None,
    **fields: object,
) -> Leaderboard:
    if release.dataset.owner_id != owner.pk and not owner.is_staff:
        raise PermissionDenied("Only the dataset's owner opens leaderboards on its releases.")
    if release.status != ReleaseStatus.PUBLISHED:
        raise ValidationError(
            {"release": "Publish the release first: leaderboards need it frozen."}
        )
    metric_options = metric_options or {}
    companion_metrics = companion_metrics if companion_metrics is not None else ["bleu", "sbleu"]
    _check_metrics(primary_metric, metric_options, companion_metrics)
    if not release_scoring_items(release=release, split=split):
        raise ValidationError(
            {"split": f"The {split} split has no item with a positively weighted reference."}
        )
    leaderboard = Leaderboard(
        owner=owner,
        release=release,
        split=split,
        name=name,
        slug=slug,
        primary_metric=primary_metric,
        metric_options=metric_options,
        companion_metrics=companion_metrics,
        **fields,
    )
    insert_checked(leaderboard)
    transaction.on_commit(lambda: _prepare(leaderboard.pk))
    return leaderboard


# What the owner may change once the board is open (the release, split and metrics are fixed:
# they define the scores already given).
BOARD_SETTINGS = (
    "name",
    "description",
    "is_public",
    "is_open",
    "daily_quota",
    "total_quota",
    "max_upload_bytes",
    "counted_per_team",
)


def leaderboard_update(*, leaderboard: Leaderboard, user: User, **fields: object) -> Leaderboard:
    """The owner's settings: quotas, the upload size limit, picks per team, open and public."""
    if not leaderboard_can_manage(user=user, leaderboard=leaderboard):
        raise PermissionDenied("Only the leaderboard's owner changes its settings.")
    unknown = sorted(set(fields) - set(BOARD_SETTINGS))
    if unknown:
        raise ValidationError({name: "This setting cannot be changed." for name in unknown})
    for name, value in fields.items():
        setattr(leaderboard, name, value)
    leaderboard.full_clean()
    if "counted_per_team" in fields:
        _check_picks_fit(leaderboard)
    leaderboard.save(update_fields=list(fields))
    return leaderboard


def _check_picks_fit(leaderboard: Leaderboard) -> None:
    """A lower limit of picks must hold for the picks made: the board would otherwise rank a
    team's entries beyond it. Teams choose what they drop, so the owner is told whose picks
    stand in the way rather than the board dropping some."""
    limit = leaderboard.counted_per_team
    picks = submissions_counted(leaderboard=leaderboard).values("team__name")
    over = picks.annotate(n=Count("pk")).filter(n__gt=limit).order_by("team__name")
    if over:
        teams = ", ".join(f"{row['team__name']} ({row['n']})" for row in over[:10])
        raise ValidationError(
            {
                "counted_per_team": f"Teams count more than {limit} submission(s) each: "
                f"{teams}. They stop counting some first, or keep a higher limit."
            }
        )


# The task that builds a new board's reference indexes (scoring/leaderboards/tasks.py registers it).
PREPARE_TASK = "scoring.leaderboards.tasks.prepare_leaderboard"


def _prepare(leaderboard_id: int) -> None:
    dispatch(PREPARE_TASK, leaderboard_id)
