"""Scoring a submission in a worker: claim it, compute per-item statistics, store scores.

Per-item statistics depend only on an item's hypothesis and the prepared references, so a large
submission is cut into chunks of items, each scored against the full reference index with the
other items' hypotheses left empty; the chunks' rows, stacked in order, are exactly the rows of
scoring in one piece (a test checks it). Chunks run in parallel as a Celery chord.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from scoring.metrics import bootstrap_ci, result_with_nrefs
from scoring.models import Score, Submission, SubmissionStatus
from scoring.services.references import (  # noqa: F401  (re-exported for the callers)
    _INDEX_CACHE,
    PreparedReferences,
    chunk_bounds,
    chunk_stats,
    leaderboard_metric,
    leaderboard_prepare,
    load_matrix,
    reference_index,
    save_matrix,
    submission_chunk_stats,
    submission_hypotheses,
)

log = logging.getLogger(__name__)

BOOTSTRAP_RESAMPLES = 1000


def chunk_name(plan: ChunkPlan, metric: str, start: int) -> str:
    # The attempt is in the name: chunks of a run that was given up never mix with a new run's.
    return f"stats/{plan.submission_id}/run{plan.attempt}/{metric}-{start:09d}.npy"


@dataclass(frozen=True)
class ChunkPlan:
    submission_id: int
    attempt: int
    metrics: list[str]
    bounds: list[tuple[int, int]]

    @property
    def steps(self) -> int:
        return len(self.metrics) * len(self.bounds)


def submission_claim(*, submission_id: int) -> bool:
    """Queued → running, once: a redelivered task finds nothing to claim."""
    now = timezone.now()
    return (
        Submission.objects.filter(pk=submission_id, status=SubmissionStatus.QUEUED).update(
            status=SubmissionStatus.RUNNING,
            started_at=now,
            heartbeat_at=now,
            progress=0,
            attempts=F("attempts") + 1,
        )
        == 1
    )


def submission_plan(*, submission_id: int, attempt: int | None = None) -> ChunkPlan:
    """The chunks of a run; `attempt` names an earlier run (default: the latest)."""
    submission = Submission.objects.select_related("leaderboard").get(pk=submission_id)
    return ChunkPlan(
        submission_id,
        submission.attempts if attempt is None else attempt,
        submission.leaderboard.metrics,
        chunk_bounds(submission.n_lines),
    )


def plan_is_current(plan: ChunkPlan) -> bool:
    """Is this run still the submission's live one (not given up and requeued since)?"""
    return Submission.objects.filter(
        pk=plan.submission_id, status=SubmissionStatus.RUNNING, attempts=plan.attempt
    ).exists()


def score_chunk(*, plan: ChunkPlan, metric_name: str, start: int, stop: int) -> str:
    """Compute and store one chunk's statistics; return its storage name."""
    if not plan_is_current(plan):
        return ""
    submission = Submission.objects.select_related("leaderboard__release").get(
        pk=plan.submission_id
    )
    references = reference_index(submission.leaderboard, metric_name)
    stats = submission_chunk_stats(submission, references, start, stop)
    name = save_matrix(chunk_name(plan, metric_name, start), stats)
    _advance(plan)
    return name


def _advance(plan: ChunkPlan) -> None:
    done = sum(
        default_storage.exists(chunk_name(plan, m, start))
        for m in plan.metrics
        for start, _ in plan.bounds
    )
    progress = min(99, int(100 * done / max(plan.steps, 1)))
    Submission.objects.filter(
        pk=plan.submission_id, status=SubmissionStatus.RUNNING, attempts=plan.attempt
    ).update(progress=progress, heartbeat_at=timezone.now())


def score_metric(submission: Submission, metric_name: str, plan: ChunkPlan) -> Score:
    references = reference_index(submission.leaderboard, metric_name)
    metric, nrefs = references.metric, references.nrefs
    parts = [load_matrix(chunk_name(plan, metric_name, s)) for s, _ in plan.bounds]
    stats = np.concatenate(parts) if parts else np.zeros((0, 1))
    stats_name = save_matrix(f"stats/{submission.pk}/{metric_name}.npy", stats)
    for s, _ in plan.bounds:
        default_storage.delete(chunk_name(plan, metric_name, s))
    result = result_with_nrefs(metric, stats.sum(axis=0), nrefs)
    interval = bootstrap_ci(metric, stats, n_samples=BOOTSTRAP_RESAMPLES)
    score, _ = Score.objects.update_or_create(
        submission=submission,
        signature=result.signature,
        defaults={
            "metric": metric_name,
            "score": float(result.score),
            "ci_low": float(interval.low),
            "ci_high": float(interval.high),
            "extras": _jsonable(result.extras),
            "stats_file": stats_name,
        },
    )
    return score


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def submission_finish(*, plan: ChunkPlan) -> bool:
    """Turn the run's chunks into scores; a stale run (requeued since) or a cancelled
    submission does nothing."""
    with transaction.atomic():
        # Locked against submission_cancel: scores are written only while the row says running.
        submission = (
            Submission.objects.select_for_update(of=("self",))
            .select_related("leaderboard__release")
            .filter(pk=plan.submission_id, status=SubmissionStatus.RUNNING, attempts=plan.attempt)
            .first()
        )
        if submission is None:
            return False
        for metric_name in plan.metrics:
            score_metric(submission, metric_name, plan)
        submission.status = SubmissionStatus.FINISHED
        submission.progress = 100
        submission.finished_at = timezone.now()
        submission.error = ""
        submission.save(update_fields=["status", "progress", "finished_at", "error"])
    return True


def submission_fail(*, submission_id: int, message: str, platform_fault: bool) -> None:
    """Record a failure; a failure of ours gives the team its attempt back."""
    Submission.objects.filter(pk=submission_id, status__in=Submission.ACTIVE).update(
        status=SubmissionStatus.FAILED,
        error=message[:2000],
        finished_at=timezone.now(),
        charged=not platform_fault,
    )


def submissions_requeue_stuck(*, older_than: timedelta) -> list[int]:
    """Put back in the queue the submissions whose worker went silent (killed, or the message
    lost); the caller sends their task again. Conditional updates: two sweeps never both win."""
    now = timezone.now()
    cutoff = now - older_than
    requeued = []
    running = Submission.objects.filter(status=SubmissionStatus.RUNNING, heartbeat_at__lt=cutoff)
    for pk in running.values_list("pk", flat=True):
        if Submission.objects.filter(
            pk=pk, status=SubmissionStatus.RUNNING, heartbeat_at__lt=cutoff
        ).update(status=SubmissionStatus.QUEUED, queued_at=now, progress=0):
            requeued.append(pk)
    queued = Submission.objects.filter(status=SubmissionStatus.QUEUED, queued_at__lt=cutoff)
    for pk in queued.values_list("pk", flat=True):
        if Submission.objects.filter(
            pk=pk, status=SubmissionStatus.QUEUED, queued_at__lt=cutoff
        ).update(queued_at=now):
            requeued.append(pk)
    return requeued
