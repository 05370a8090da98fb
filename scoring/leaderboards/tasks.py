"""Celery tasks of scoring: the parts of a large submission's chord, and index preparation.

A submission's run itself goes through the run engine's one task (core.runs.tasks); these are
the steps it fans out to, each a step of the same attempt (fenced, with a heartbeat).
"""

from __future__ import annotations

from celery import shared_task

from core.runs.engine import run_continue
from core.runs.steps import FINISH_STEP
from scoring.leaderboards.services.leaderboards import PREPARE_TASK
from scoring.leaderboards.services.references import leaderboard_prepare
from scoring.leaderboards.services.scoring import (
    FINISH_TASK,
    SCORE_CHUNK_TASK,
    finish_chunks,
    score_chunk,
)


@shared_task(name=SCORE_CHUNK_TASK)
def score_chunk_task(run_id: int, attempt: int, metric: str, start: int, stop: int) -> str | None:
    return run_continue(
        run_id=run_id,
        attempt=attempt,
        ends_run=False,
        step=lambda run: score_chunk(run, metric, start, stop),
        step_name=f"{metric}:{start}",
    )


@shared_task(name=FINISH_TASK)
def finish_submission_task(run_id: int, attempt: int) -> None:
    run_continue(
        run_id=run_id, attempt=attempt, step=finish_chunks, ends_run=True, step_name=FINISH_STEP
    )


@shared_task(name=PREPARE_TASK)
def prepare_leaderboard_task(leaderboard_id: int) -> list[str]:
    """Build the reference indexes of a new leaderboard before its first submission arrives."""
    return leaderboard_prepare(leaderboard_id=leaderboard_id)
