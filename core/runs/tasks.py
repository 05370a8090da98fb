"""The engine's Celery tasks: one task executes every run; the sweep; a chord's error callback."""

from __future__ import annotations

from celery import shared_task

from core.runs.canvas import CHORD_FAILED_TASK
from core.runs.engine import EXECUTE_TASK, run_attempt_failed, run_execute
from core.runs.sweep import run_sweep


@shared_task(name=EXECUTE_TASK)
def execute_run_task(run_id: int, attempt: int) -> None:
    run_execute(run_id=run_id, attempt=attempt)


@shared_task(name="runs.sweep")
def sweep_runs_task() -> dict[str, int]:
    report = run_sweep()
    return {"dispatched": report.dispatched, "retried": report.retried}


@shared_task(name=CHORD_FAILED_TASK)
def chord_failed_task(run_id: int, attempt: int) -> None:
    """A chord's error callback: one failed part fails the attempt (the next one, if any, starts
    from the beginning; parts of this attempt that still run are fenced out)."""
    run_attempt_failed(run_id=run_id, attempt=attempt, reason="a part of its work failed")
