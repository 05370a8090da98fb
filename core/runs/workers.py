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

# Celery's own polling of a chord whose result backend cannot join it natively: bookkeeping
# that runs for milliseconds every second while a chord is open, not work a worker holds.
BOOKKEEPING_TASKS = frozenset({"celery.chord_unlock"})


def worker_beat(*, hostname: str, queues: Iterable[str], busy: bool) -> None:
    """Record that the worker is alive, what it consumes, and whether it holds a task now; an
    idle worker keeps the moment it became idle."""
    now = timezone.now()
    idle_since = None if busy else Coalesce("idle_since", Value(now))
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

    requests = [*state.active_requests, *state.reserved_requests]
    return sum(1 for request in requests if request.name not in BOOKKEEPING_TASKS)


class WorkerHeartbeat:
    """A thread of the worker's main process that beats every RUNS_HEARTBEAT_SECONDS."""

    def __init__(self, hostname: str, queues: Iterable[str]) -> None:
        self.hostname, self.queues = hostname, tuple(queues)
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
        try:
            worker_beat(hostname=self.hostname, queues=self.queues, busy=tasks_in_hand() > 0)
        except DatabaseError as exc:  # a locked SQLite file or a blip: the next beat will do
            log.info("heartbeat of worker %s skipped: %s", self.hostname, exc)

    def _run(self) -> None:
        try:
            while not self._stop.wait(settings.RUNS_HEARTBEAT_SECONDS):
                self._beat()
        finally:
            connections.close_all()  # this thread's own connections
