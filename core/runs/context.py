"""What a run's body sees: its run, progress reports, stages, a temporary folder, fenced writes.

Every write goes through a conditional UPDATE on (run, attempt, running), so a worker whose
attempt was given up meanwhile learns it at its next report (RunFenced) and stops writing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from core.runs.errors import RunCancelled, RunFenced
from core.runs.models import Run, RunState
from core.runs.tempfiles import tmp_folder


class RunContext:
    """The live attempt of a run, as its body uses it."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.run_id: int = run.pk
        self.attempt: int = run.attempt
        self.ended = False  # set when the body ended the run itself (commit)
        self._timings: dict[str, float] = dict(run.stage_timings)
        self._timings_unsaved = False  # a stage ended since the last write

    @property
    def params(self) -> dict[str, Any]:
        return self.run.params

    def _live(self):
        return Run.objects.filter(pk=self.run_id, attempt=self.attempt, state=RunState.RUNNING)

    def _write(self, **fields: Any) -> None:
        """Update the live attempt, or raise: cancelled by its owner, or superseded."""
        fields.setdefault("heartbeat_at", Greatest("heartbeat_at", timezone.now()))
        if self._timings_unsaved:
            fields.setdefault("stage_timings", dict(self._timings))
        if self._live().filter(cancel_requested=False).update(**fields):
            self._timings_unsaved = False
            return
        if self._live().filter(cancel_requested=True).exists():
            raise RunCancelled
        raise RunFenced

    def progress(self, done: int, total: int | None = None, message: str = "") -> None:
        """Record progress (and a heartbeat); raise RunCancelled if the owner asked to stop."""
        fields: dict[str, Any] = {"done": max(0, done)}
        if total is not None:
            fields["total"] = max(0, total)
        if message:
            fields["message"] = message[:500]
        self._write(**fields)

    def advance(self, steps: int = 1) -> None:
        """Count finished steps atomically: parts of a chord, in several processes, each add
        their own without reading what the others did."""
        self._write(done=F("done") + steps)

    def check(self) -> None:
        """Raise if the run was cancelled or this attempt superseded; a cheap point to stop."""
        self._write()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time a named stage of the work; the run's page shows the timings. They are saved with
        the next write (the next stage, a progress report, the run's end), not by one of their
        own: a body reports again right after a stage anyway."""
        self._write(message=name[:500])
        started = time.perf_counter()
        yield
        self._timings[name] = round(self._timings.get(name, 0.0) + time.perf_counter() - started, 3)
        self._timings_unsaved = True

    def expect_parts(self, count: int) -> None:
        """The attempt fans out to `count` parts, sent now (see core/runs/steps.py)."""
        self._write(parts=count, parts_sent_at=timezone.now())

    def lease(self, seconds: float) -> None:
        """Promise a heartbeat within `seconds` (longer than the kind's grace): for a stage whose
        tasks wait in a queue, where nothing can beat until a worker takes them."""
        self._write(heartbeat_at=timezone.now() + timedelta(seconds=seconds))

    @property
    def tmpdir(self) -> Path:
        """This attempt's own folder, removed by the engine at every ending."""
        folder = tmp_folder(self.run_id, self.attempt)
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    @contextmanager
    def fenced(self) -> Iterator[Run]:
        """A transaction holding the run's row, entered only by the live attempt: the body's
        final writes go here, so a superseded or cancelled attempt cannot make them."""
        with transaction.atomic():
            row = Run.objects.select_for_update().filter(pk=self.run_id).first()
            if row is None or row.attempt != self.attempt or row.state != RunState.RUNNING:
                raise RunFenced
            if row.cancel_requested:
                raise RunCancelled
            yield row

    @property
    def timings(self) -> dict[str, float]:
        return dict(self._timings)
