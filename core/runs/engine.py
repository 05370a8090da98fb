"""The run engine's writes: create, dispatch, claim, run a step, end, retry, cancel.

Every state change is a conditional UPDATE (or a locked row) keyed on the attempt, so two workers
never both own an attempt, and a message for an older attempt finds nothing to do.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from core.dispatch import dispatch
from core.runs.context import RunContext
from core.runs.errors import RunCancelled, RunFenced, RunRefused
from core.runs.heartbeat import Heartbeat
from core.runs.kinds import DEFERRED, get_kind, queue_for
from core.runs.models import Run, RunState
from core.runs.steps import step_finished, step_started, steps_forget
from core.runs.tempfiles import tmp_remove

log = logging.getLogger(__name__)

# The one task that executes every run (core/runs/tasks.py registers it under this name).
EXECUTE_TASK = "runs.execute"


def run_create(
    *,
    kind: str,
    owner: User,
    params: dict[str, Any] | None = None,
    scope: str = "",
    message: str = "",
    send: bool = True,
) -> Run:
    """A queued run, sent to a worker once the surrounding transaction commits (never before:
    a worker must find the rows this transaction writes). `send=False`: the caller executes it
    in its own process (`run_execute`), so it is marked as sent and the outbox leaves it be."""
    run_kind = get_kind(kind)
    run = Run.objects.create(
        kind=kind,
        owner=owner,
        params=params or {},
        scope=scope,
        max_attempts=run_kind.max_attempts,
        message=message[:500],
        dispatched_at=None if send else timezone.now(),
    )
    if send:
        transaction.on_commit(lambda: run_dispatch(run_id=run.pk, attempt=run.attempt))
    return run


def run_dispatch(*, run_id: int, attempt: int, countdown: float | None = None) -> bool:
    """Send a queued attempt to the broker; mark it sent. If the broker is unreachable the run
    stays in the outbox (dispatched_at null) and the sweep sends it later."""
    run = Run.objects.filter(pk=run_id, attempt=attempt, state=RunState.QUEUED).first()
    if run is None:
        return False
    queue = queue_for(get_kind(run.kind))
    if not dispatch(EXECUTE_TASK, run_id, attempt, countdown=countdown, queue=queue):
        return False
    Run.objects.filter(pk=run_id, attempt=attempt, state=RunState.QUEUED).update(
        dispatched_at=timezone.now()
    )
    return True


def run_claim(run_id: int, attempt: int) -> Run | None:
    """Queued → running for this attempt, once; the kind's on_start hook in the same transaction."""
    with transaction.atomic():
        now = timezone.now()
        claimed = Run.objects.filter(
            pk=run_id, attempt=attempt, state=RunState.QUEUED, cancel_requested=False
        ).update(
            state=RunState.RUNNING,
            started_at=now,
            heartbeat_at=now,
            done=0,
            stage_timings={},
            parts=0,
            parts_sent_at=None,
            message="Started.",
        )
        if not claimed:
            return None
        run = Run.objects.get(pk=run_id)
        hook = get_kind(run.kind).on_start
        if hook is not None:
            hook(run)
    return run


def run_execute(*, run_id: int, attempt: int) -> bool:
    """The body of the one Celery task every run goes through: claim, work, end. Returns
    whether this call claimed the attempt (False: another process has it, it has ended, or it
    was cancelled while queued)."""
    run = run_claim(run_id, attempt)
    if run is None:
        return False  # a duplicate or stale message, or cancelled while queued
    _step(run, get_kind(run.kind).body, ends_run=True)  # the claim's fresh row, not read again
    return True


def run_continue(
    *,
    run_id: int,
    attempt: int,
    step: Callable[[RunContext], Any],
    ends_run: bool,
    step_name: str | None = None,
) -> Any:
    """Run one step of a live attempt with a heartbeat beside it. A step that `ends_run` stores
    its return value as the result (unless it returned DEFERRED: later tasks end it). A step that
    fails ends the attempt: retried with the next attempt number, or failed after the last one;
    a step of a chord re-raises then, so that the chord stops and its error callback runs.
    A named step (a part of a chord) beats for itself too, so that the sweep finds it silent
    if its worker dies while the attempt still holds its lease (see core/runs/steps.py)."""
    run = Run.objects.filter(pk=run_id, attempt=attempt, state=RunState.RUNNING).first()
    if run is None:
        return None  # superseded or ended: a late worker writes nothing
    return _step(run, step, ends_run=ends_run, step_name=step_name)


def _step(
    run: Run, step: Callable[[RunContext], Any], *, ends_run: bool, step_name: str | None = None
) -> Any:
    """run_continue's work, on the live attempt's row."""
    run_id, attempt = run.pk, run.attempt
    kind = get_kind(run.kind)
    context = RunContext(run)
    refusals: tuple[type[BaseException], ...] = (RunRefused, *kind.refusals)
    if step_name is not None:
        step_started(run_id, attempt, step_name)
    try:
        with Heartbeat(run_id, attempt, step_name):
            result = step(context)
    except RunFenced:
        return None
    except RunCancelled:
        _end(run_id, attempt, RunState.CANCELLED, reason="Cancelled by its owner.")
        return None
    except refusals as exc:
        _end(run_id, attempt, RunState.FAILED, reason=str(exc), refused=True)
        return None
    except Exception as exc:
        log.exception("run %s (%s) attempt %s failed", run_id, run.kind, attempt)
        run_attempt_failed(run_id=run_id, attempt=attempt, reason=f"{type(exc).__name__}: {exc}")
        if not ends_run:
            raise
        return None
    finally:
        if step_name is not None:
            step_finished(run_id, attempt, step_name)
    if ends_run and result is not DEFERRED and not context.ended:
        run_succeed(context, result if isinstance(result, dict) else {})
    return result


def run_succeed(
    context: RunContext, result: dict[str, Any], write: Callable[[], Any] | None = None
) -> None:
    """End the live attempt as succeeded; `write` (the body's final rows) runs in the same
    transaction, under the run's row lock, so either both happen or neither."""
    with context.fenced() as row:
        if write is not None:
            write()
        row.state, row.result, row.finished_at = RunState.SUCCEEDED, result, timezone.now()
        row.done = max(row.done, row.total)
        row.message, row.stage_timings = "Finished.", context.timings
        row.save(
            update_fields=["state", "result", "finished_at", "done", "message", "stage_timings"]
        )
        _call_end_hook(row)
    context.ended = True
    _release(context.run_id, context.attempt)


def _release(run_id: int, attempt: int) -> None:
    """What an ended attempt leaves: its temporary files and its steps' heartbeats."""
    tmp_remove(run_id, attempt)
    steps_forget(run_id, attempt)


def _call_end_hook(run: Run) -> None:
    hook = get_kind(run.kind).on_end
    if hook is not None:
        hook(run)


def _end(run_id: int, attempt: int, state: str, *, reason: str, refused: bool = False) -> bool:
    """End an active attempt as failed or cancelled (no-op for another attempt)."""
    with transaction.atomic():
        row = Run.objects.select_for_update().filter(pk=run_id, attempt=attempt).first()
        if row is None or row.state not in Run.ACTIVE:
            return False
        row.state, row.reason, row.refused = state, reason[:4000], refused
        row.finished_at = timezone.now()
        row.message = "Cancelled." if state == RunState.CANCELLED else "Failed."
        row.save(update_fields=["state", "reason", "refused", "finished_at", "message"])
        _call_end_hook(row)
    _release(run_id, attempt)
    return True


def run_attempt_failed(*, run_id: int, attempt: int, reason: str) -> None:
    """An attempt failed or went silent: queue the next attempt, or fail after the last."""
    with transaction.atomic():
        row = Run.objects.select_for_update().filter(pk=run_id, attempt=attempt).first()
        if row is None or row.state not in Run.ACTIVE:
            return
        if row.cancel_requested:
            cancelled = True
        elif row.attempt >= row.max_attempts:
            cancelled = False
            row.state, row.finished_at = RunState.FAILED, timezone.now()
            row.reason = f"Failed after {row.attempt} attempts. Last: {reason}"[:4000]
            row.message = "Failed."
            row.save(update_fields=["state", "finished_at", "reason", "message"])
            _call_end_hook(row)
        else:
            cancelled = False
            row.attempt += 1
            row.state, row.dispatched_at, row.heartbeat_at = RunState.QUEUED, None, None
            row.parts, row.parts_sent_at = 0, None
            row.reason = f"Attempt {attempt} failed: {reason}"[:4000]
            row.message = f"Retrying (attempt {row.attempt} of {row.max_attempts})."
            row.save(
                update_fields=[
                    "attempt",
                    "state",
                    "dispatched_at",
                    "heartbeat_at",
                    "parts",
                    "parts_sent_at",
                    "reason",
                    "message",
                ]
            )
            next_attempt, backoff = (
                row.attempt,
                settings.RUNS_RETRY_BACKOFF_SECONDS * 2 ** (attempt - 1),
            )
            transaction.on_commit(
                lambda: run_dispatch(run_id=run_id, attempt=next_attempt, countdown=backoff)
            )
    if cancelled:
        _end(run_id, attempt, RunState.CANCELLED, reason="Cancelled by its owner.")
    _release(run_id, attempt)


def run_cancel(*, run: Run) -> bool:
    """Ask a run to stop: a queued run stops at once, a running one at its next report."""
    Run.objects.filter(pk=run.pk, state__in=Run.ACTIVE).update(cancel_requested=True)
    queued = Run.objects.filter(pk=run.pk, state=RunState.QUEUED).values_list("attempt", flat=True)
    for attempt in queued:
        _end(run.pk, attempt, RunState.CANCELLED, reason="Cancelled by its owner.")
    run.refresh_from_db()
    return run.cancel_requested or run.state == RunState.CANCELLED


def run_retry(*, run: Run) -> bool:
    """Start a failed run again, with a fresh budget of attempts (an operator's decision)."""
    with transaction.atomic():
        failed = Run.objects.select_for_update().filter(pk=run.pk, state=RunState.FAILED).first()
        if failed is not None:
            failed.attempt += 1
            failed.max_attempts = failed.attempt + get_kind(failed.kind).max_attempts - 1
            failed.state, failed.message = RunState.QUEUED, "Retried by an operator."
            failed.dispatched_at = failed.heartbeat_at = failed.finished_at = None
            failed.cancel_requested = failed.refused = False
            failed.save()
            attempt = failed.attempt
            transaction.on_commit(lambda: run_dispatch(run_id=run.pk, attempt=attempt))
    run.refresh_from_db()
    return failed is not None
