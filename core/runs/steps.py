"""Heartbeats of an attempt's steps that run apart from its body (the parts of a chord).

A chord's attempt is leased while its parts wait in the queue, where nothing can beat. A part
that starts records its step and beats for it; a step that stops beating before it finished
means its worker died (SIGKILL, a lost machine), and the sweep retries the attempt at once
rather than waiting for the lease to end. Likewise when every part finished and the step that
ends the chord (FINISH_STEP) never started: the chord's callback was lost with a worker.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import F
from django.utils import timezone

from core.runs.kinds import get_kind
from core.runs.models import RunState, RunStep

# The name of the step that ends a chord (its callback); every other step is a part.
FINISH_STEP = "finish"


def step_started(run_id: int, attempt: int, name: str) -> None:
    """The step begins (again, if its message was delivered twice): alive, not finished."""
    RunStep.objects.update_or_create(
        run_id=run_id,
        attempt=attempt,
        name=name,
        defaults={"heartbeat_at": timezone.now(), "finished": False},
    )


def step_beat(run_id: int, attempt: int, name: str) -> None:
    RunStep.objects.filter(run_id=run_id, attempt=attempt, name=name).update(
        heartbeat_at=timezone.now()
    )


def step_finished(run_id: int, attempt: int, name: str) -> None:
    RunStep.objects.filter(run_id=run_id, attempt=attempt, name=name).update(finished=True)


def steps_forget(run_id: int, attempt: int) -> None:
    """An attempt ended: its steps say nothing any more."""
    RunStep.objects.filter(run_id=run_id, attempt=attempt).delete()


def silent_steps(now: datetime) -> list[tuple[int, int, str]]:
    """(run, attempt, kind) of running attempts with a started, unfinished step silent past the
    kind's grace, or whose parts all finished more than the grace ago while the step that ends
    the chord never started."""
    steps = RunStep.objects.filter(run__state=RunState.RUNNING, attempt=F("run__attempt"))
    rows = steps.values_list(
        "run_id", "attempt", "run__kind", "run__parts", "name", "heartbeat_at", "finished"
    )
    attempts: dict[tuple[int, int, str], list[tuple[int, str, datetime, bool]]] = {}
    for run_id, attempt, kind, parts, name, heartbeat_at, finished in rows:
        attempts.setdefault((run_id, attempt, kind), []).append(
            (parts, name, heartbeat_at, finished)
        )
    silent = []
    for (run_id, attempt, kind), found in attempts.items():
        try:
            cutoff = now - get_kind(kind).grace
        except LookupError:
            continue  # a kind this process does not know: another app's worker handles it
        stale = any(not done and beat < cutoff for _, _, beat, done in found)
        parts_done = [beat for _, name, beat, done in found if done and name != FINISH_STEP]
        expected = found[0][0]
        callback_lost = (
            expected > 0
            and len(parts_done) >= expected
            and all(name != FINISH_STEP for _, name, _, _ in found)
            and max(parts_done) < cutoff
        )
        if stale or callback_lost:
            silent.append((run_id, attempt, kind))
    return sorted(silent)
