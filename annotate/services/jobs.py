"""Writes to jobs: start, progress, finish, fail, cancel — each a conditional UPDATE.

A task calls `job_start` and goes on only if it returns True, so a redelivered or duplicated
message never runs the same job twice; `job_progress` tells the task whether the owner asked to
cancel, so long loops can stop between batches.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotate.models import Dataset, Job, JobStatus
from core.dispatch import dispatch


class JobCancelled(Exception):
    """Raised inside a job's loop when the owner asked to cancel it."""


def job_create(
    *, kind: str, owner: User, dataset: Dataset | None = None, params: dict | None = None
) -> Job:
    return Job.objects.create(kind=kind, owner=owner, dataset=dataset, params=params or {})


def job_enqueue(*, job: Job, task) -> None:
    """Send the job's task once the surrounding transaction commits."""
    transaction.on_commit(lambda: dispatch(task, job.pk))


def job_start(*, job_id: int, total: int = 0) -> bool:
    now = timezone.now()
    claimed = Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=now, heartbeat_at=now, total=total, done=0
    )
    return claimed == 1


def job_progress(*, job_id: int, done: int, total: int | None = None, message: str = "") -> None:
    """Record progress; raise JobCancelled if the owner asked to stop."""
    fields: dict = {"done": done, "heartbeat_at": timezone.now()}
    if total is not None:
        fields["total"] = total
    if message:
        fields["message"] = message[:500]
    running = Job.objects.filter(pk=job_id, status=JobStatus.RUNNING, cancel_requested=False)
    if not running.update(**fields) and Job.objects.filter(pk=job_id, cancel_requested=True):
        raise JobCancelled


def job_finish(*, job_id: int, result: dict | None = None, message: str = "") -> None:
    Job.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(
        status=JobStatus.FINISHED,
        result=result or {},
        message=message[:500],
        finished_at=timezone.now(),
    )


def job_fail(*, job_id: int, message: str) -> None:
    Job.objects.filter(pk=job_id, status__in=Job.ACTIVE).update(
        status=JobStatus.FAILED, message=message[:500], finished_at=timezone.now()
    )


def job_mark_cancelled(*, job_id: int) -> None:
    Job.objects.filter(pk=job_id, status__in=Job.ACTIVE).update(
        status=JobStatus.CANCELLED, finished_at=timezone.now(), message="Cancelled by its owner."
    )


def job_cancel(*, job: Job) -> None:
    """Ask a job to stop: a queued job stops at once, a running one at its next batch."""
    Job.objects.filter(pk=job.pk, status__in=Job.ACTIVE).update(cancel_requested=True)
    Job.objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(
        status=JobStatus.CANCELLED, finished_at=timezone.now(), message="Cancelled by its owner."
    )


def job_run(*, job_id: int, work: Callable[[Job], dict]) -> None:
    """Run `work(job)` as the body of a job: claim it, record the outcome, never run it twice.

    `work` reports progress with `job_progress` and returns the result to store. An error is
    recorded on the job (its message is what the owner sees) and re-raised for Celery's logs.
    """
    if not job_start(job_id=job_id):
        return  # another worker claimed it first, or it was cancelled while queued
    job = Job.objects.get(pk=job_id)
    try:
        result = work(job)
    except JobCancelled:
        job_mark_cancelled(job_id=job_id)
    except Exception as exc:
        job_fail(job_id=job_id, message=f"{exc.__class__.__name__}: {exc}")
        raise
    else:
        job_finish(job_id=job_id, result=result)


# kind → Celery task name, so the sweep below can send a stuck job's task again.
JOB_TASKS: dict[str, str] = {}


def job_register_task(kind: str, task_name: str) -> None:
    JOB_TASKS[kind] = task_name


def job_requeue_stale(*, older_than: timedelta, send: Callable[[str, int], None]) -> int:
    """Send again the jobs no worker is doing: running ones whose worker went silent, and
    queued ones whose message never reached a worker (the broker was down when they were
    created, or an embedded broker lost it)."""
    cutoff = timezone.now() - older_than
    requeued = 0
    silent = Q(status=JobStatus.RUNNING, heartbeat_at__lt=cutoff)
    waiting = Q(status=JobStatus.QUEUED) & (
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, created_at__lt=cutoff)
    )
    for job in Job.objects.filter(silent | waiting):
        task_name = JOB_TASKS.get(job.kind)
        if task_name is None:
            continue
        # Conditional: two sweeps never both send; heartbeat_at marks when it was last sent.
        reset = Job.objects.filter(Q(pk=job.pk) & (silent | waiting)).update(
            status=JobStatus.QUEUED, heartbeat_at=timezone.now(),
            message="Waiting for a worker." if job.status == JobStatus.QUEUED
            else "Requeued: its worker went silent.",
        )  # fmt: skip
        if reset:
            send(task_name, job.pk)
            requeued += 1
    return requeued
