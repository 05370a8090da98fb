"""Celery tasks of scoring: thin wrappers that take ids and call the scoring services."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import chord, shared_task
from django.db import OperationalError

from scoring.metrics import MetricInputError
from scoring.models import Submission, SubmissionStatus
from scoring.services.scoring import (
    leaderboard_prepare,
    score_chunk,
    submission_claim,
    submission_fail,
    submission_finish,
    submission_plan,
    submissions_requeue_stuck,
)

log = logging.getLogger(__name__)

# A running submission reports progress at least this often; silence past it means its
# worker died. Kept above the time a single chunk can take.
STUCK_AFTER = timedelta(minutes=10)
TRANSIENT = (OperationalError,)


def _run_inline(plan) -> None:
    for metric in plan.metrics:
        for start, stop in plan.bounds:
            score_chunk(plan=plan, metric_name=metric, start=start, stop=stop)
    submission_finish(plan=plan)


@shared_task(name="scoring.tasks.score_submission", bind=True, max_retries=3)
def score_submission_task(self, submission_id: int) -> None:
    if not submission_claim(submission_id=submission_id):
        return  # a duplicate message, or cancelled: someone else owns it or nobody should
    plan = submission_plan(submission_id=submission_id)
    try:
        if len(plan.bounds) > 1:
            header = [
                score_chunk_task.s(submission_id, plan.attempt, metric, start, stop)
                for metric in plan.metrics
                for start, stop in plan.bounds
            ]
            chord(header)(finish_submission_task.si(submission_id, plan.attempt))
        else:
            _run_inline(plan)
    except TRANSIENT as exc:
        Submission.objects.filter(pk=submission_id, status=SubmissionStatus.RUNNING).update(
            status=SubmissionStatus.QUEUED
        )
        raise self.retry(exc=exc, countdown=2 ** (self.request.retries + 1)) from exc
    except MetricInputError as exc:
        submission_fail(submission_id=submission_id, message=str(exc), platform_fault=False)
    except Exception as exc:
        log.exception("scoring submission %s failed", submission_id)
        submission_fail(
            submission_id=submission_id,
            message=f"The scorer failed ({exc.__class__.__name__}); your quota was not charged.",
            platform_fault=True,
        )
        raise


@shared_task(name="scoring.tasks.score_chunk")
def score_chunk_task(submission_id: int, attempt: int, metric: str, start: int, stop: int) -> str:
    plan = submission_plan(submission_id=submission_id, attempt=attempt)
    return score_chunk(plan=plan, metric_name=metric, start=start, stop=stop)


@shared_task(name="scoring.tasks.finish_submission")
def finish_submission_task(submission_id: int, attempt: int) -> bool:
    plan = submission_plan(submission_id=submission_id, attempt=attempt)
    try:
        return submission_finish(plan=plan)
    except Exception as exc:
        submission_fail(
            submission_id=submission_id,
            message=f"The scorer failed ({exc.__class__.__name__}); your quota was not charged.",
            platform_fault=True,
        )
        raise


@shared_task(name="scoring.tasks.requeue_stuck_submissions")
def requeue_stuck_submissions_task() -> int:
    requeued = submissions_requeue_stuck(older_than=STUCK_AFTER)
    for submission_id in requeued:
        score_submission_task.delay(submission_id)
    return len(requeued)


@shared_task(name="scoring.tasks.prepare_leaderboard")
def prepare_leaderboard_task(leaderboard_id: int) -> list[str]:
    """Build the reference indexes of a new leaderboard before its first submission arrives."""
    return leaderboard_prepare(leaderboard_id=leaderboard_id)


from scoring import tasks_study  # noqa: E402, F401  (registers the correlation-study task)
