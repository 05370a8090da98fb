"""Workers beat for themselves, and a chord's part prefetched by a worker that died is found
from the live workers' heartbeats: every worker of its queue idle since after the chord's last
sign of life means no queue and no live worker holds it (core/runs/steps.py `parts_lost`)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.runs.context import RunContext
from core.runs.engine import run_claim
from core.runs.models import Run, RunStep, Worker
from core.runs.steps import FINISH_STEP, parts_lost
from core.runs.sweep import run_sweep
from core.runs.workers import BOOKKEEPING_TASKS, _Received, note_received, worker_beat, worker_gone
from tests.core.run_kind_kit import new_run

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("test_kind")]


def _chord(owner, capture, parts: int = 3) -> Run:
    """A running attempt that sent `parts` parts a minute ago, leased for ten minutes."""
    run = new_run(owner, capture)
    assert run_claim(run.pk, 1)
    context = RunContext(Run.objects.get(pk=run.pk))
    context.expect_parts(parts)
    context.lease(600)
    Run.objects.filter(pk=run.pk).update(parts_sent_at=timezone.now() - timedelta(minutes=1))
    return Run.objects.get(pk=run.pk)


def _worker(name: str, queues: list[str], idle_for: float | None) -> Worker:
    now = timezone.now()
    idle_since = None if idle_for is None else now - timedelta(seconds=idle_for)
    return Worker.objects.create(
        hostname=name, queues=queues, started_at=now, beat_at=now, idle_since=idle_since
    )


def _step(run: Run, name: str, seconds_ago: float, *, finished: bool = True) -> None:
    beat = timezone.now() - timedelta(seconds=seconds_ago)
    RunStep.objects.create(run=run, attempt=1, name=name, heartbeat_at=beat, finished=finished)


@pytest.fixture(autouse=True)
def queue(settings) -> str:
    """The light queue (the test kind's), renamed for these tests: a real worker the suite
    started elsewhere beats into the same database, and must not count as one of its workers."""
    settings.CELERY_TASK_DEFAULT_QUEUE = "run-workers-test"
    return settings.CELERY_TASK_DEFAULT_QUEUE


def test_a_part_no_live_worker_holds_is_retried_before_the_lease_ends(
    owner, sent, django_capture_on_commit_callbacks, queue
):
    run = _chord(owner, django_capture_on_commit_callbacks)
    _step(run, "a", 50)
    _step(run, "b", 45)  # the third part never started
    _worker("w1", [queue], idle_for=40)
    assert parts_lost(timezone.now()) == [(run.pk, 1, run.kind)]
    with django_capture_on_commit_callbacks(execute=True):
        assert run_sweep().retried == 1
    run.refresh_from_db()
    assert (run.state, run.attempt, run.parts, run.parts_sent_at) == ("queued", 2, 0, None)
    assert "its worker stopped responding" in run.reason


@pytest.mark.parametrize(
    "why",
    [
        "a busy worker may hold it",
        "idle since before the last part finished",
        "idle for one beat only",
        "no live worker of its queue",
        "a worker of another queue only",
        "the worker went silent",
        "every part started",
    ],
)
def test_a_part_that_may_still_be_queued_or_held_is_left_to_its_lease(
    why, owner, sent, django_capture_on_commit_callbacks, queue, settings
):
    run = _chord(owner, django_capture_on_commit_callbacks)
    _step(run, "a", 50)
    _step(run, "b", 45)
    if why == "a busy worker may hold it":
        _worker("idle", [queue], idle_for=40)
        _worker("busy", [queue], idle_for=None)
    elif why == "idle since before the last part finished":
        _worker("w1", [queue], idle_for=48)
    elif why == "idle for one beat only":
        _worker("w1", [queue], idle_for=settings.RUNS_HEARTBEAT_SECONDS)
    elif why == "a worker of another queue only":
        _worker("w1", [f"{queue}-other"], idle_for=40)
    elif why == "the worker went silent":
        Worker.objects.filter(pk=_worker("w1", [queue], idle_for=40).pk).update(
            beat_at=timezone.now() - timedelta(minutes=5)
        )
    elif why == "every part started":
        _worker("w1", [queue], idle_for=40)
        _step(run, "c", 20, finished=False)
    assert parts_lost(timezone.now()) == []


def test_the_step_that_ends_the_chord_is_no_part(
    owner, sent, django_capture_on_commit_callbacks, queue
):
    run = _chord(owner, django_capture_on_commit_callbacks, parts=2)
    _step(run, "a", 50)
    _step(run, FINISH_STEP, 45, finished=False)
    _worker("w1", [queue], idle_for=40)
    assert parts_lost(timezone.now()) == [(run.pk, 1, run.kind)]


def test_a_worker_beat_keeps_when_it_became_idle_and_forgets_it_when_busy():
    worker_beat(hostname="w@h", queues=["b", "a"], busy=False, took_work=False)
    first = Worker.objects.get(hostname="w@h")
    assert first.queues == ["a", "b"] and first.idle_since == first.beat_at
    worker_beat(hostname="w@h", queues=["a", "b"], busy=False, took_work=False)
    again = Worker.objects.get(hostname="w@h")
    assert again.idle_since == first.idle_since and again.beat_at > first.beat_at
    # A task taken and finished between two beats: idle since this beat, not the first.
    worker_beat(hostname="w@h", queues=["a", "b"], busy=False, took_work=True)
    after_work = Worker.objects.get(hostname="w@h")
    assert after_work.idle_since == after_work.beat_at > first.idle_since
    worker_beat(hostname="w@h", queues=["a", "b"], busy=True, took_work=True)
    assert Worker.objects.get(hostname="w@h").idle_since is None
    worker_gone(hostname="w@h")
    assert not Worker.objects.filter(hostname="w@h").exists()


def test_bookkeeping_tasks_are_not_work_a_worker_took():
    before = _Received.count
    for name in BOOKKEEPING_TASKS:
        note_received(name)
    assert _Received.count == before
    note_received("scoring.leaderboards.tasks.score_chunk")
    assert _Received.count == before + 1
