"""A submission's standing on its board, apart from its scoring: which of a team's test
submissions count, hidden by the board's owner or withdrawn by its team (with a reason its team
reads), marked as a baseline.

Listing states: listed → hidden (owner) → listed (owner restores); listed → withdrawn (team) →
listed (team reinstates); a withdrawn one may still be hidden by the owner. Leaving the listing
drops the submission's pick, so a team's slots are never held by something off the board.
Every change that alters the board's entries stores its significance answers again.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from scoring.leaderboards.models import Listing, Submission, SubmissionStatus, Team
from scoring.leaderboards.selectors.leaderboards import leaderboard_can_manage
from scoring.leaderboards.selectors.submissions import (
    submission_is_team_member,
    submissions_counted,
)
from scoring.leaderboards.services.rank_groups import leaderboard_rank_groups_store

REASON_MAX = 500


def _locked(submission: Submission) -> Submission:
    # Only the submission's row: locking the board's row too would hold up every upload to it.
    rows = Submission.objects.select_for_update(of=("self",))
    return rows.select_related("leaderboard", "team").get(pk=submission.pk)


def _save(submission: Submission, fields: list[str]) -> Submission:
    submission.save(update_fields=fields)
    if submission.status == SubmissionStatus.FINISHED:  # the board's entries changed
        leaderboard_rank_groups_store(leaderboard_id=submission.leaderboard_id)
    return submission


def _require_team(submission: Submission, user: User, what: str) -> None:
    if not submission_is_team_member(submission=submission, user=user):
        raise PermissionDenied(f"Only the submission's team {what}.")


def _require_owner(submission: Submission, user: User, what: str) -> None:
    if not leaderboard_can_manage(user=user, leaderboard=submission.leaderboard):
        raise PermissionDenied(f"Only the leaderboard's owner {what}.")


def _clean_reason(reason: str, *, required: bool) -> str:
    reason = reason.strip()
    if required and not reason:
        raise ValidationError({"reason": "Give a reason: the team reads it."})
    if len(reason) > REASON_MAX:
        raise ValidationError({"reason": f"Keep the reason under {REASON_MAX} characters."})
    return reason


def _set_listing(submission: Submission, user: User, listing: str, reason: str) -> Submission:
    submission.listing = listing
    submission.listing_reason = reason
    submission.listing_changed_by = user
    submission.listing_changed_at = timezone.now()
    fields = ["listing", "listing_reason", "listing_changed_by", "listing_changed_at"]
    if listing != Listing.LISTED and submission.counts:
        submission.counts = False
        fields.append("counts")
    return _save(submission, fields)


def submission_hide(*, submission: Submission, user: User, reason: str) -> Submission:
    """The owner takes a submission off the board (junk, a leak, a duplicate); its team sees
    it with the reason."""
    _require_owner(submission, user, "hides submissions")
    reason = _clean_reason(reason, required=True)
    with transaction.atomic():
        locked = _locked(submission)
        if locked.listing == Listing.HIDDEN:
            raise ValidationError({"listing": "It is hidden already."})
        return _set_listing(locked, user, Listing.HIDDEN, reason)


def _relist(submission: Submission, user: User, *, was: str, refusal: str) -> Submission:
    """Back on the board, from the `was` listing only (otherwise refused with `refusal`)."""
    with transaction.atomic():
        locked = _locked(submission)
        if locked.listing != was:
            raise ValidationError({"listing": refusal})
        return _set_listing(locked, user, Listing.LISTED, "")


def submission_restore(*, submission: Submission, user: User) -> Submission:
    _require_owner(submission, user, "restores hidden submissions")
    refusal = "Only a hidden submission can be restored."
    return _relist(submission, user, was=Listing.HIDDEN, refusal=refusal)


def submission_withdraw(*, submission: Submission, user: User, reason: str = "") -> Submission:
    """The team takes its own submission off the board (a bug found after submitting)."""
    _require_team(submission, user, "withdraws it")
    reason = _clean_reason(reason, required=False)
    with transaction.atomic():
        locked = _locked(submission)
        if locked.listing != Listing.LISTED:
            raise ValidationError({"listing": f"It is {locked.listing} already."})
        return _set_listing(locked, user, Listing.WITHDRAWN, reason)


def submission_reinstate(*, submission: Submission, user: User) -> Submission:
    _require_team(submission, user, "reinstates it")
    refusal = "Only a withdrawn submission can be reinstated."
    return _relist(submission, user, was=Listing.WITHDRAWN, refusal=refusal)


def submission_set_baseline(*, submission: Submission, user: User, is_baseline: bool) -> Submission:
    """The owner marks a submission as a baseline: shown apart, always on the board, outside
    the teams' picks and quotas."""
    _require_owner(submission, user, "marks baselines")
    with transaction.atomic():
        locked = _locked(submission)
        locked.is_baseline = is_baseline
        fields = ["is_baseline"]
        if is_baseline and locked.counts:
            locked.counts = False
            fields.append("counts")
        return _save(locked, fields)


def submission_set_counts(*, submission: Submission, user: User, counts: bool) -> Submission:
    """A team picks whether a submission counts on a test board, up to the board's limit."""
    _require_team(submission, user, "picks what counts")
    board = submission.leaderboard
    if board.split != "test":
        raise ValidationError(
            {
                "counts": "Only test leaderboards let teams pick: dev boards "
                "show each team's latest submission."
            }
        )
    with transaction.atomic():
        # The team row orders two picks of one team (as it orders their uploads).
        Team.objects.select_for_update().get(pk=submission.team_id)
        locked = _locked(submission)
        if counts and not locked.counts:
            _check_pick(locked)
        locked.counts = counts
        return _save(locked, ["counts"])


def _check_pick(submission: Submission) -> None:
    if submission.is_baseline:
        raise ValidationError({"counts": "A baseline is always shown; it takes no pick."})
    if submission.listing != Listing.LISTED:
        raise ValidationError({"counts": f"It is {submission.listing}: reinstate it first."})
    if submission.status in (SubmissionStatus.FAILED, SubmissionStatus.CANCELLED):
        raise ValidationError({"counts": f"It is {submission.status}: it has no score."})
    board = submission.leaderboard
    picked = submissions_counted(leaderboard=board, team_id=submission.team_id)
    if picked.count() >= board.counted_per_team:
        names = ", ".join(f"“{s.method}”" for s in picked)
        limit = board.counted_per_team
        message = (
            f"This leaderboard counts at most {limit} submission(s) a team, "
            f"and yours counts {names}: stop counting one first."
        )
        raise ValidationError({"counts": message})


def submission_change(
    *,
    submission: Submission,
    user: User,
    listing: str | None = None,
    reason: str = "",
    counts: bool | None = None,
    is_baseline: bool | None = None,
) -> Submission:
    """One change asked by a page or the API, given to the service that makes it. The listing
    names where it should go; who may take it there is each service's rule."""
    if is_baseline is not None:
        submission = submission_set_baseline(
            submission=submission, user=user, is_baseline=is_baseline
        )
    if counts is not None:
        submission = submission_set_counts(submission=submission, user=user, counts=counts)
    if listing == Listing.HIDDEN:
        submission = submission_hide(submission=submission, user=user, reason=reason)
    elif listing == Listing.WITHDRAWN:
        submission = submission_withdraw(submission=submission, user=user, reason=reason)
    elif listing == Listing.LISTED and submission.listing == Listing.HIDDEN:
        submission = submission_restore(submission=submission, user=user)
    elif listing == Listing.LISTED and submission.listing == Listing.WITHDRAWN:
        submission = submission_reinstate(submission=submission, user=user)
    elif listing == Listing.LISTED:
        raise ValidationError({"listing": "It is listed already."})
    return submission
