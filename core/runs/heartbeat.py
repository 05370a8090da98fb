"""A thread that beats for an attempt while its body runs, however long a silent step takes.

The heartbeat says "a worker process is alive and on this attempt", not "progress was made": a
long silent step keeps beating, and only a dead process (SIGKILL, a lost machine) stops it.
"""

from __future__ import annotations

import logging
import threading
from types import TracebackType

from django.conf import settings
from django.db import DatabaseError, connections
from django.db.models.functions import Greatest
from django.utils import timezone

from core.runs.models import Run, RunState
from core.runs.steps import step_beat

log = logging.getLogger(__name__)


class Heartbeat:
    """`with Heartbeat(run_id, attempt): ...` beats every RUNS_HEARTBEAT_SECONDS."""

    def __init__(self, run_id: int, attempt: int, step_name: str | None = None) -> None:
        self.run_id, self.attempt, self.step_name = run_id, attempt, step_name
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"run-{run_id}-heartbeat")
        self._thread.daemon = True

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(settings.RUNS_HEARTBEAT_SECONDS):
                try:
                    Run.objects.filter(
                        pk=self.run_id, attempt=self.attempt, state=RunState.RUNNING
                    ).update(heartbeat_at=Greatest("heartbeat_at", timezone.now()))
                    if self.step_name is not None:
                        step_beat(self.run_id, self.attempt, self.step_name)
                except DatabaseError as exc:  # a locked SQLite file: the next beat will do
                    log.info("heartbeat of run %s skipped: %s", self.run_id, exc)
        finally:
            connections.close_all()  # this thread's own connections
