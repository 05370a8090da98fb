from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from core.errors import NotFound
from scoring.leaderboards.models import Leaderboard, Listing, Submission, SubmissionStatus
from scoring.leaderboards.selectors.leaderboards import leaderboard_can_manage


def submission_get_for_user(*, user: User | AnonymousUser, submission_id: int) -> Submission:
    """A submission is its team's, and the leaderboard owner's; to anyone else it does not
    exist (its scores appear on the leaderboard if it is public)."""
    submission = (
        Submission.objects.select_related("leaderboard__release__dataset", "team", "run")
        .prefetch_related("scores")
        .filter(pk=submission_id)
        .first()
    )
    if submission is None or not user.is_authenticated:
        raise NotFound("No such submission.")
    if submission.team.members.filter(pk=user.pk).exists():
        return submission
    if leaderboard_can_manage(user=user, leaderboard=submission.leaderboard):
        return submission
    raise NotFound("No such submission.")


def submissions_live_of_user(
    *, user: User, leaderboard: Leaderboard, limit: int = 10
) -> list[Submission]:
    """The user's submissions still queued or being scored, for the page to follow."""
    mine = submissions_of_user(user=user, leaderboard=leaderboard)
    return list(mine.filter(status__in=Submission.ACTIVE)[:limit])


def submissions_of_user(*, user: User, leaderboard: Leaderboard) -> QuerySet[Submission]:
    return (
        Submission.objects.filter(leaderboard=leaderboard, team__members=user)
        .select_related("team", "run", "leaderboard")
        .prefetch_related("scores")
        .distinct()
    )


def submissions_finished_by_id(
    *, leaderboard: Leaderboard, ids: list[int]
) -> dict[int, Submission]:
    """The board's finished submissions among `ids`, by id (with what copying them needs)."""
    finished = Submission.objects.filter(
        leaderboard=leaderboard, pk__in=ids, status=SubmissionStatus.FINISHED
    ).select_related("leaderboard__release__dataset", "team")
    return {submission.pk: submission for submission in finished}


def submissions_finished(*, leaderboard: Leaderboard) -> QuerySet[Submission]:
    """Every finished submission of the board (its owner's choice for a human evaluation, the
    picked-or-not and private ones included), best known first: newest."""
    return (
        Submission.objects.filter(leaderboard=leaderboard, status=SubmissionStatus.FINISHED)
        .select_related("leaderboard__release__dataset", "team")
        .order_by("-submitted_at", "-pk")
    )


def submissions_missing_replicates(*, leaderboard: Leaderboard, every: bool) -> list[Submission]:
    """Finished submissions of the board with a score lacking its bootstrap replicates (all
    finished ones with `every`), oldest first, their submitters loaded."""
    finished = submissions_finished(leaderboard=leaderboard).select_related("submitted_by")
    if not every:
        finished = finished.filter(scores__replicates_file="").distinct()
    return list(finished.order_by("submitted_at", "pk"))


def submissions_counted(
    *, leaderboard: Leaderboard, team_id: int | None = None
) -> QuerySet[Submission]:
    """The team's picks on a test board (every team's without `team_id`): listed, not failed
    or cancelled, not baselines."""
    teams = {} if team_id is None else {"team_id": team_id}
    return Submission.objects.filter(
        leaderboard=leaderboard,
        **teams,
        counts=True,
        is_baseline=False,
        listing=Listing.LISTED,
        status__in=(*Submission.ACTIVE, SubmissionStatus.FINISHED),
    )


def submission_is_team_member(*, submission: Submission, user: User | AnonymousUser) -> bool:
    return user.is_authenticated and submission.team.members.filter(pk=user.pk).exists()


def submissions_unlisted(
    *, leaderboard: Leaderboard, user: User | AnonymousUser
) -> list[Submission]:
    """Hidden and withdrawn submissions this user may see with their reasons: the board's
    owner sees all of them, a team its own."""
    unlisted = (
        Submission.objects.filter(leaderboard=leaderboard)
        .exclude(listing=Listing.LISTED)
        .select_related("team", "listing_changed_by")
        .order_by("-listing_changed_at", "-pk")
    )
    if leaderboard_can_manage(user=user, leaderboard=leaderboard):
        return list(unlisted)
    if not user.is_authenticated:
        return []
    return list(unlisted.filter(team__members=user).distinct())


def submission_by_id(*, submission_id: int) -> Submission | None:
    """The submission of that id as stored now, whoever made it (for management commands)."""
    return Submission.objects.filter(pk=submission_id).first()
