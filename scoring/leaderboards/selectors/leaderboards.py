"""Reads of leaderboards: visibility, the references they score against, their entries."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Q, QuerySet

from annotate.datasets.models import Visibility
from annotate.datasets.selectors import dataset_list_visible
from annotate.releases.models import (
    Release,
    ReleaseItem,
    ReleaseReference,
    ReleaseStatus,
    weight_field,
)
from annotate.releases.visibility import release_references_visible
from core.converters import natural_or_none
from core.errors import NotFound
from scoring.leaderboards.models import Leaderboard, Listing, Submission, SubmissionStatus
from scoring.metrics import Metric, RefItem, WeightedRef, get_metric


def leaderboard_can_manage(*, user: User | AnonymousUser, leaderboard: Leaderboard) -> bool:
    return user.is_authenticated and (user.is_staff or leaderboard.owner_id == user.pk)


def leaderboards_visible(*, user: User | AnonymousUser) -> QuerySet[Leaderboard]:
    """Public leaderboards of published releases of public datasets, plus the user's own."""
    boards = Leaderboard.objects.select_related("release__dataset", "owner")
    public = Q(
        is_public=True,
        release__status=ReleaseStatus.PUBLISHED,
        release__dataset__visibility=Visibility.PUBLIC,
    )
    if user.is_authenticated and user.is_staff:
        return boards
    if user.is_authenticated:
        return boards.filter(public | Q(owner=user))
    return boards.filter(public)


def leaderboard_get_visible(*, user: User | AnonymousUser, slug: str) -> Leaderboard:
    board = leaderboards_visible(user=user).filter(slug=slug).first()
    if board is None:
        raise NotFound("No such leaderboard.")
    return board


def leaderboard_by_slug(*, slug: str) -> Leaderboard | None:
    """Any leaderboard by its slug (operators' commands; pages ask leaderboard_get_visible)."""
    return Leaderboard.objects.select_related("release").filter(slug=slug).first()


def leaderboard_get_managed(*, user: User | AnonymousUser, slug: str, refusal: str) -> Leaderboard:
    """The leaderboard if the user runs it; ``refusal`` as a 403 to one who may only see it (and
    the 404 of :func:`leaderboard_get_visible` to others)."""
    board = leaderboard_get_visible(user=user, slug=slug)
    if not leaderboard_can_manage(user=user, leaderboard=board):
        raise PermissionDenied(refusal)
    return board


def releases_for_leaderboards(*, user: User) -> QuerySet[Release]:
    """Published releases the user may open a leaderboard on (their datasets'; staff: all)."""
    releases = Release.objects.filter(status=ReleaseStatus.PUBLISHED).select_related("dataset")
    return releases if user.is_staff else releases.filter(dataset__owner=user)


def user_may_open_leaderboard(*, user: User) -> bool:
    return releases_for_leaderboards(user=user).exists()


def release_for_leaderboard(*, user: User, release_id: str) -> Release:
    """A release named in a link to the new-leaderboard form, if the user may open one on it."""
    pk = natural_or_none(release_id)
    found = releases_for_leaderboards(user=user).filter(pk=pk).first() if pk else None
    if found is None:
        raise NotFound("No such release.")
    return found


def release_named(*, user: User | AnonymousUser, name: str) -> Release | None:
    """A release by id or `<dataset-slug>@<version>`, among those of datasets the user sees."""
    releases = Release.objects.filter(dataset__in=dataset_list_visible(user=user))
    pk = natural_or_none(name)  # not str.isdigit(): "²" and 30 digits name no release
    if pk is not None:
        return releases.filter(pk=pk).first()
    if "@" in name:
        slug, version = name.split("@", 1)
        return releases.filter(dataset__slug=slug, version=version).first()
    return None


def references_visible(*, user: User | AnonymousUser, leaderboard: Leaderboard) -> bool:
    """May this user see the references? Hidden test references are the owner's alone."""
    return release_references_visible(
        user=user, release=leaderboard.release, split=leaderboard.split
    ) or leaderboard_can_manage(user=user, leaderboard=leaderboard)


def leaderboard_metric(leaderboard: Leaderboard, name: str) -> Metric:
    """One of the board's metrics; the primary one with the options the owner chose."""
    options = leaderboard.metric_options if name == leaderboard.primary_metric else {}
    return get_metric(name, **options)


def release_scoring_items(*, release: Release, split: str) -> list[tuple[ReleaseItem, RefItem]]:
    """The split's items that can be scored, in release order, with their weighted references.

    A reference counts when it has a weight (it was rated); an item counts when one of its
    references has a positive weight, since ΔBLEU's denominator needs one. This is the same
    rule as the release's downloadable reference file, so the CLI on that file gives the
    leaderboard's scores.
    """
    items = (
        ReleaseItem.objects.filter(release=release, split=split)
        .prefetch_related("references")
        .order_by("position")
    )
    field = weight_field(release.weight_variant)
    scored = []
    for item in items:
        refs = tuple(
            WeightedRef(ref.text, float(w))
            for ref in item.references.all()
            if (w := getattr(ref, field)) is not None
        )
        if any(ref.weight > 0 for ref in refs):
            scored.append((item, RefItem(item.external_id, refs)))
    return scored


def leaderboard_item_ids(*, leaderboard: Leaderboard) -> list[str]:
    """Ids of the scored items in order: one query, no references loaded (uploads check
    against this on the web server, where a million items must stay cheap)."""
    release = leaderboard.release
    positive = ReleaseReference.objects.filter(
        item=OuterRef("pk"), **{f"{weight_field(release.weight_variant)}__gt": 0}
    )
    return list(
        ReleaseItem.objects.filter(release=release, split=leaderboard.split)
        .filter(Exists(positive))
        .order_by("position")
        .values_list("external_id", flat=True)
    )


def leaderboard_entries(
    *, leaderboard: Leaderboard, user: User | AnonymousUser
) -> QuerySet[Submission]:
    """Finished submissions shown on the board: baselines, and per team the latest (dev) or the
    ones the team picked (test). Private submissions only to their team and the owner; hidden
    and withdrawn ones to nobody (their team reads why elsewhere)."""
    finished = leaderboard.submissions.filter(
        status=SubmissionStatus.FINISHED, listing=Listing.LISTED
    ).select_related("team")
    if leaderboard.split == "test":
        finished = finished.filter(Q(counts=True) | Q(is_baseline=True))
    if not leaderboard_can_manage(user=user, leaderboard=leaderboard):
        mine = Q(team__members=user) if user.is_authenticated else Q(pk__in=[])
        finished = finished.filter(Q(is_public=True) | mine)
    return finished.prefetch_related("scores").distinct()


def latest_per_team(submissions: list[Submission]) -> list[Submission]:
    """Baselines and each team's most recent submission (dev leaderboards)."""
    seen: set[int] = set()
    kept = []
    for submission in sorted(submissions, key=lambda s: s.submitted_at, reverse=True):
        if submission.is_baseline or submission.team_id not in seen:
            kept.append(submission)
            if not submission.is_baseline:
                seen.add(submission.team_id)
    return kept
