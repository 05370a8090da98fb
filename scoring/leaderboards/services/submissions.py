"""Writes of submissions: upload (checked before anything is queued), quotas, cancel."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, time

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.errors import Conflict
from core.lines import LineProblem
from core.runs.engine import run_cancel, run_create
from core.runs.models import Run, RunState
from scoring.leaderboards.models import Leaderboard, Score, Submission, SubmissionStatus, Team
from scoring.leaderboards.selectors.leaderboards import leaderboard_can_manage, leaderboard_item_ids
from scoring.leaderboards.selectors.submissions import submissions_counted
from scoring.leaderboards.services.scoring import SCORING_KIND, submission_scope
from scoring.leaderboards.services.uncertainty import replicates_start
from scoring.leaderboards.submission_files import (
    UploadRejected,
    parse_submission,
    upload_too_large,
)


def team_for(*, user: User, name: str = "") -> Team:
    """The named team, which the user must belong to; or the user's own one-person team."""
    if name:
        team = Team.objects.filter(name=name, members=user).first()
        if team is None:
            raise ValidationError({"team": f"You are not a member of a team called {name!r}."})
        return team
    team, _ = Team.objects.get_or_create(name=user.username)
    if not team.members.filter(pk=user.pk).exists():
        # Asked about others only: a first upload sent twice at once adds the user twice (the
        # second add changes nothing), and asking "any member?" told the second it was taken.
        if team.members.exclude(pk=user.pk).exists():
            raise ValidationError({"team": "Name your team: a team has your username already."})
        team.members.add(user)
    return team


def _start_of_day(now: datetime) -> datetime:
    return datetime.combine(now.date(), time.min, tzinfo=now.tzinfo)


def _check_quota(leaderboard: Leaderboard, team: Team) -> None:
    # Charged ones, and those still waiting for a worker (charged when it starts them).
    charged = Submission.objects.filter(leaderboard=leaderboard, team=team).filter(
        Q(charged=True) | Q(status=SubmissionStatus.QUEUED)
    )
    if charged.count() >= leaderboard.total_quota:
        raise ValidationError(f"Your team has used all {leaderboard.total_quota} submissions.")
    today = charged.filter(submitted_at__gte=_start_of_day(timezone.now())).count()
    if today >= leaderboard.daily_quota:
        raise ValidationError(
            f"Your team has used its {leaderboard.daily_quota} submissions for today (UTC)."
        )


def submission_create(
    *,
    leaderboard: Leaderboard,
    user: User,
    lines: Iterable[bytes],
    size: int,
    filename: str,
    method: str,
    team_name: str = "",
    fmt: str = "",
    description: str = "",
    url: str = "",
    is_baseline: bool = False,
    is_public: bool = True,
) -> Submission:
    """Check the file, charge the quota under a lock, store, and queue the scoring."""
    if is_baseline and not leaderboard_can_manage(user=user, leaderboard=leaderboard):
        raise PermissionDenied("Only the leaderboard's owner adds baselines.")
    if not leaderboard.is_open and not is_baseline:
        raise ValidationError("This leaderboard does not accept submissions.")
    if size > leaderboard.max_upload_bytes:
        raise UploadRejected([LineProblem(0, upload_too_large(size, leaderboard.max_upload_bytes))])
    if not method.strip():
        raise ValidationError({"method": "Name the method."})
    item_ids = leaderboard_item_ids(leaderboard=leaderboard)
    raw = list(lines)
    hyps, layout = parse_submission(raw, item_ids, fmt)  # raises UploadRejected: no quota cost
    team = team_for(user=user, name=team_name)
    with transaction.atomic():
        # The team row is the quota's lock: concurrent uploads of one team queue here, so
        # none can slip past the count the others are making.
        Team.objects.select_for_update().get(pk=team.pk)
        if not is_baseline:
            _check_quota(leaderboard, team)
        # A new test submission counts while the team has picks left; beyond, the team picks.
        counts = (
            leaderboard.split == "test"
            and not is_baseline
            and submissions_counted(leaderboard=leaderboard, team_id=team.pk).count()
            < leaderboard.counted_per_team
        )
        submission = Submission(
            leaderboard=leaderboard,
            team=team,
            submitted_by=user,
            format=layout,
            n_lines=len(hyps),
            method=method.strip()[:200],
            description=description,
            url=url,
            is_baseline=is_baseline,
            is_public=is_public,
            counts=counts,
            status=SubmissionStatus.QUEUED,
        )
        # Checked before the file is stored, and the file removed if the rows fail: a refused
        # upload (a URL too long, say) must not leave a file behind, one more at each retry.
        submission.full_clean(exclude=["file"])
        submission.file.save(
            filename[-100:] or "output.txt", ContentFile(b"".join(raw)), save=False
        )
        try:
            submission.save()
            submission.run = run_create(
                kind=SCORING_KIND,
                owner=user,
                scope=submission_scope(submission.pk),
                params={"submission_id": submission.pk},
            )
            submission.save(update_fields=["run"])
        except BaseException:
            submission.file.delete(save=False)
            raise
    return submission


def submission_run_started(run: Run) -> None:
    """The scoring run's start hook: the submission is running, and now it costs an attempt."""
    # Not only active ones: an operator may retry a failed run (`manage.py runs --retry`).
    submissions = Submission.objects.filter(run=run).exclude(status=SubmissionStatus.CANCELLED)
    submissions.update(
        status=SubmissionStatus.RUNNING,
        error="",
        finished_at=None,
        charged=Q(charged=True) | Q(is_baseline=False),  # a baseline costs its team nothing
    )


def submission_run_ended(run: Run) -> None:
    """The scoring run's end hook: its outcome becomes the submission's. A failure of ours gives
    the team its attempt back; a refused file (the input's fault) keeps it charged."""
    submissions = Submission.objects.filter(run=run, status__in=Submission.ACTIVE)
    now = timezone.now()
    if run.state == RunState.SUCCEEDED:
        finished = list(submissions)
        submissions.update(status=SubmissionStatus.FINISHED, finished_at=now, error="")
        # The board's rank groups follow once this transaction commits (scoring.py), not in
        # it: their bootstraps take seconds, and this transaction holds the run's row lock.
        for submission in finished:  # their replicates follow, in a run of their own
            replicates_start(submission=submission, owner=run.owner)
    elif run.state == RunState.FAILED:
        message = (
            run.reason
            if run.refused
            else (f"The scorer failed; your quota was not charged. ({run.reason})")
        )
        fields = {"status": SubmissionStatus.FAILED, "finished_at": now, "error": message[:2000]}
        submissions.update(**fields, **({} if run.refused else {"charged": False}))
    elif run.state == RunState.CANCELLED:
        for submission in submissions:
            _mark_cancelled(submission)


def submission_cancel(*, submission: Submission, user: User) -> bool:
    """Stop a submission for good: it is never scored or shown, and whatever a run already
    stored for it goes. Cancelling before scoring began gives the attempt back; once a worker
    has started, the attempt counts (otherwise cancelling at 99% would be a free look).

    Returns False when it was cancelled already (a retried request); raises Conflict when it
    has ended otherwise: a finished one is withdrawn, not cancelled."""
    if not submission.team.members.filter(pk=user.pk).exists():
        raise PermissionDenied("Only the submission's team can cancel it.")
    with transaction.atomic():
        # The run's row lock, which the run's final write holds too: the run either finishes
        # first (and the submission can no longer be cancelled) or finds the cancel and writes
        # nothing.
        runs = Run.objects.select_for_update()
        run = runs.filter(pk=submission.run_id).first() if submission.run_id else None
        locked = (
            Submission.objects.select_for_update()
            .filter(pk=submission.pk, status__in=Submission.ACTIVE)
            .first()
        )
        if locked is None or (run is not None and run.state not in Run.ACTIVE):
            submission.refresh_from_db(fields=["status"])
            if submission.status == SubmissionStatus.CANCELLED:
                return False
            ended = "Its scoring has just ended" if locked else f"It has {submission.state}"
            raise Conflict(
                f"{ended}: only a queued or running submission can be cancelled (withdraw it to"
                " take it off the board)."
            )
        _mark_cancelled(locked)
        if run is not None:
            run_cancel(run=run)
    return True


def _mark_cancelled(submission: Submission) -> None:
    """It is charged only if a worker had started it (charging happens then)."""
    submission.status = SubmissionStatus.CANCELLED
    submission.finished_at = timezone.now()
    submission.save(update_fields=["status", "finished_at"])
    Score.objects.filter(submission=submission).delete()


def upload_problems_as_dicts(exc: UploadRejected) -> list[dict[str, object]]:
    return [p.as_dict("line", "message") for p in exc.problems]
