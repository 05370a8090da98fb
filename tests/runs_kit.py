"""Running a run of the run engine in the test's own process, as a worker would."""

from __future__ import annotations

import io

from core.runs.engine import run_execute
from core.runs.models import Run, RunState
from tests.workers import wait_for

# How long a run that another process claimed first may take to end there.
OTHER_WORKER_SECONDS = 120


def execute(run: Run | int) -> Run:
    """Execute the run's current attempt here (claim, body, end) and return it refreshed.

    In a test whose writes commit, the upload also sends the run to the broker, and a Celery
    worker that an earlier test started for the session may claim it first, before this call
    or while it claims: then it ends there, and this waits for that (up to
    OTHER_WORKER_SECONDS, then fails) instead of returning a run that is still running
    elsewhere. (A run executed here can stay running: a chord's.)"""
    run_id = run if isinstance(run, int) else run.pk
    current = Run.objects.get(pk=run_id)
    if run_execute(run_id=run_id, attempt=current.attempt):
        return Run.objects.get(pk=run_id)
    return wait_for(
        lambda: _ended(run_id), OTHER_WORKER_SECONDS, f"run {run_id} to end in another process"
    )


def _ended(run_id: int) -> Run | None:
    current = Run.objects.get(pk=run_id)
    return None if current.state == RunState.RUNNING else current


def execute_replicates(submission) -> Run | None:
    """The run of a submission's replicates, queued when its scoring ended, executed here (or
    waited for, when a worker took it first)."""
    replicates = (
        Run.objects.filter(
            kind="replicates",
            scope=f"submission:{submission.pk}",
            state__in=(RunState.QUEUED, RunState.RUNNING),
        )
        .order_by("-pk")
        .first()
    )
    return execute(replicates) if replicates is not None else None


def execute_scoring(submission) -> Run:
    """A submission's scoring run here, then the run of its replicates that its end queued (a
    worker takes both in turn); returns the scoring run."""
    run = execute(submission.run_id)
    execute_replicates(submission)
    return run


def upload(board, user, hyps, **fields):
    """`submission_create` for a list of output lines (or the file's text or bytes), as a
    participant's upload arrives: named out.txt unless `filename` says otherwise, method
    "system" by default."""
    from scoring.leaderboards.services.submissions import submission_create

    if isinstance(hyps, bytes):
        data = hyps
    else:
        data = (hyps if isinstance(hyps, str) else "\n".join(hyps) + "\n").encode()
    fields.setdefault("method", "system")
    fields.setdefault("filename", "out.txt")
    # Lines end at "\n" only, as an upload's do (core.lines.file_lines).
    lines = io.BytesIO(data).readlines()
    return submission_create(leaderboard=board, user=user, lines=lines, size=len(data), **fields)


def waited(run: Run | int, seconds: float = 60) -> Run:
    """The queued run as if its message had been sent `seconds` ago (past the waiting warning's
    threshold by default), refreshed."""
    from datetime import timedelta

    from django.utils import timezone

    run_id = run if isinstance(run, int) else run.pk
    ago = timezone.now() - timedelta(seconds=seconds)
    Run.objects.filter(pk=run_id).update(created_at=ago, dispatched_at=ago)
    return Run.objects.get(pk=run_id)


def live_workers(queues: list[str]) -> None:
    """Workers beating now, one per queue given (none when empty), as their heartbeats would
    say; any other worker's row is gone. For unit tests; tests/integration starts real ones."""
    from django.core.cache import cache
    from django.utils import timezone

    from core.runs.models import Worker

    Worker.objects.all().delete()
    now = timezone.now()
    for queue in queues:
        Worker.objects.create(
            hostname=f"stub-{queue}@host", queues=[queue], started_at=now, beat_at=now
        )
    cache.clear()  # an earlier answer must not hide this one
