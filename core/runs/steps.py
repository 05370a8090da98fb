"""Heartbeats of an attempt's steps that run apart from its body (the parts of a chord).

A chord's attempt is leased while its parts wait in the queue, where nothing can beat. A part
that starts records its step and beats for it; a step that stops beating before it finished
means its worker died (SIGKILL, a lost machine), and the sweep retries the attempt at once
rather than waiting for the lease to end. Likewise when every part finished and the step that
ends the chord (FINISH_STEP) never started: the chord's callback was lost with a worker. And a
part that never started while every live worker of its queue has held nothing since after the
chord's last sign of life was prefetched by a worker that died (`parts_lost`): a queued part
would have been taken by an idle worker, and a live worker's prefetched one would make it busy.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, F, Max, Q
from django.utils import timezone

from core.runs.kinds import get_kind, queue_for
from core.runs.models import Run, RunState, RunStep, Worker

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
    """Its last sign of life too: a worker idle since before it did not wait for this part."""
    RunStep.objects.filter(run_id=run_id, attempt=attempt, name=name).update(
        finished=True, heartbeat_at=timezone.now()
    )


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


# A live worker counts as idle once two of its heartbeats found it holding nothing: one beat
# could fall in the instant between acknowledging a task and taking the next message.
IDLE_BEATS = 2
# A worker silent this many heartbeats is not live (the kinds' grace is six beats too).
SILENT_BEATS = 6


def workers_live(now: datetime) -> list[Worker]:
    """Workers whose own heartbeat is recent."""
    silent = timedelta(seconds=SILENT_BEATS * settings.RUNS_HEARTBEAT_SECONDS)
    return list(Worker.objects.filter(beat_at__gte=now - silent))


def parts_lost(now: datetime) -> list[tuple[int, int, str]]:
    """(run, attempt, kind) of running chord attempts with parts that never started, while
    every live worker of their queue (at least one) has held no task since after the attempt's
    last sign of life (its parts sent, a part started, beating or finished) for IDLE_BEATS
    heartbeats: those parts are neither queued nor in a live worker's hands."""
    this_attempt = Q(steps__attempt=F("attempt"))
    chords = (
        Run.objects.filter(state=RunState.RUNNING, parts__gt=0, parts_sent_at__isnull=False)
        .annotate(
            started=Count("steps", filter=this_attempt & ~Q(steps__name=FINISH_STEP)),
            last_step=Max("steps__heartbeat_at", filter=this_attempt),
        )
        .filter(started__lt=F("parts"))
        .values_list("pk", "attempt", "kind", "parts_sent_at", "last_step")
    )
    if not chords:
        return []
    workers = workers_live(now)
    idle_before = now - timedelta(seconds=IDLE_BEATS * settings.RUNS_HEARTBEAT_SECONDS)
    lost = []
    for run_id, attempt, kind, sent_at, last_step in chords:
        try:
            queue = queue_for(get_kind(kind))
        except LookupError:
            continue  # a kind this process does not know: another app's worker handles it
        last_sign = max(sign for sign in (sent_at, last_step) if sign is not None)
        idle_since = [worker.idle_since for worker in workers if queue in worker.queues]
        if idle_since and all(
            since is not None and last_sign < since <= idle_before for since in idle_since
        ):
            lost.append((run_id, attempt, kind))
    return lost
