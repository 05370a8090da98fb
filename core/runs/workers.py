"""Heartbeats of the Celery workers themselves: which queues each live worker consumes, and
since when it has held no task.

A run's own heartbeat says whether the process running it is alive; nothing beats for a message
a worker received and had not started (a chord's part it prefetched). The workers' heartbeats
fill that gap: when every live worker of a queue has held nothing since after a chord's last
sign of life, its parts that never started are in no queue and in no live worker's hands, so
they were lost with a dead worker (core/runs/steps.py). They also say which queues have no
worker at all (core/runs/queue_selectors.py), on every broker, the file-system one included.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connections
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.runs.models import Worker

log = logging.getLogger(__name__)

# Bookkeeping that runs for milliseconds, not work a worker holds: Celery's own polling of a
# chord (every second while one is open) and the engine's sweep (every RUNS_SWEEP_SECONDS).
BOOKKEEPING_TASKS = frozenset({"celery.chord_unlock", "runs.sweep"})


class _Received:
    """How many tasks (bookkeeping left out) this worker process has received: a task taken
    and finished between two beats leaves no other trace in them."""

    count = 0


def note_received(task_name: str) -> None:
    """Called in the worker's main process for every task it receives (core/runs/signals.py)."""
    if task_name not in BOOKKEEPING_TASKS:
        _Received.count += 1


def worker_beat(*, hostname: str, queues: Iterable[str], busy: bool, took_work: bool) -> None:
    """Record that the worker is alive, what it consumes, and whether it holds a task now. An
    idle worker keeps the moment it was first seen idle after its last task: now, when it took
    a task since its last beat (finished by now, however short), else the moment kept."""
    now = timezone.now()
    idle_since = None if busy else Value(now) if took_work else Coalesce("idle_since", Value(now))
    fields = {"queues": sorted(queues), "beat_at": now, "idle_since": idle_since}
    if Worker.objects.filter(hostname=hostname).update(**fields):
        return
    try:
        Worker.objects.create(
            hostname=hostname,
            queues=fields["queues"],
            started_at=now,
            beat_at=now,
            idle_since=None if busy else now,
        )
    except IntegrityError:  # a worker of the same name beat first: the next beat updates it
        log.info("worker %s: another process created its row first", hostname)


def worker_gone(*, hostname: str) -> None:
    """A worker stopping gracefully: its unstarted messages went back to the broker, so its
    silence must not be read as a death."""
    Worker.objects.filter(hostname=hostname).delete()


def workers_forget_dead(*, before: datetime) -> int:
    """Remove rows of workers silent since `before` (long dead: nothing reads them any more)."""
    return Worker.objects.filter(beat_at__lt=before).delete()[0]


def tasks_in_hand() -> int:
    """Tasks this worker process received and has not finished (running or waiting for a pool
    process), Celery's bookkeeping left out. Read in the worker's main process."""
    from celery.worker import state

    for _ in range(10):
        try:
            requests = [*state.active_requests, *state.reserved_requests]
        except RuntimeError:  # the consumer changed a set while this thread read it
            continue
        return sum(1 for request in requests if request.name not in BOOKKEEPING_TASKS)
    return 1  # could not tell: busy, which only puts off a conclusion drawn from idleness


class WorkerHeartbeat:
    """A thread of the worker's main process that beats every RUNS_HEARTBEAT_SECONDS."""

    def __init__(self, hostname: str, queues: Iterable[str]) -> None:
        self.hostname, self.queues = hostname, tuple(queues)
        self._received_at_last_beat = _Received.count
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-heartbeat", daemon=True)

    def start(self) -> None:
        self._beat()  # at once: the queues it consumes are known from its first second
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        # The main thread's connection may have idled for days, or been cut by a pool process
        # forked with it: a fresh one says goodbye.
        connections.close_all()
        try:
            worker_gone(hostname=self.hostname)
        except DatabaseError as exc:
            log.warning("worker %s could not remove its heartbeat: %s", self.hostname, exc)

    def _beat(self) -> None:
        received = _Received.count
        took_work, self._received_at_last_beat = received != self._received_at_last_beat, received
        try:
            busy = tasks_in_hand() > 0
            worker_beat(hostname=self.hostname, queues=self.queues, busy=busy, took_work=took_work)
        except DatabaseError as exc:  # a locked SQLite file or a blip: the next beat will do
            log.info("heartbeat of worker %s skipped: %s", self.hostname, exc)
        except Exception:  # whatever it was, the next beat must still come
            log.exception("heartbeat of worker %s failed", self.hostname)

    def _run(self) -> None:
        try:
            while not self._stop.wait(settings.RUNS_HEARTBEAT_SECONDS):
                self._beat()
        finally:
            connections.close_all()  # this thread's own connections
