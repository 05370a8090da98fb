"""A chord's parts beat for themselves: a part lost with a killed worker is found within the
grace, not at the end of the lease its attempt holds while parts wait in the queue."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.runs.context import RunContext
from core.runs.engine import run_claim, run_continue
from core.runs.models import Run, RunStep
from core.runs.steps import FINISH_STEP
from core.runs.sweep import run_sweep
from tests.core.run_kind_kit import new_run
from tests.workers import wait_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("test_kind")]


def _leased(owner, capture) -> Run:
    run = new_run(owner, capture)
    assert run_claim(run.pk, 1)
    RunContext(Run.objects.get(pk=run.pk)).lease(600)  # parts wait in the queue
    return run


def _age(run: Run, name: str, seconds: float) -> None:
    RunStep.objects.filter(run=run, name=name).update(
        heartbeat_at=timezone.now() - timedelta(seconds=seconds)
    )


def test_a_started_part_that_stops_beating_fails_its_attempt_despite_the_lease(
    owner, sent, django_capture_on_commit_callbacks
):
    run = _leased(owner, django_capture_on_commit_callbacks)
    RunStep.objects.create(run=run, attempt=1, name="dbleu:0", heartbeat_at=timezone.now())
    assert run_sweep().retried == 0  # the lease holds and the part beats
    _age(run, "dbleu:0", 29)
    assert run_sweep().retried == 0  # within the kind's grace (30 s)
    _age(run, "dbleu:0", 31)
    with django_capture_on_commit_callbacks(execute=True):
        assert run_sweep().retried == 1
    run.refresh_from_db()
    assert (run.state, run.attempt) == ("queued", 2)
    assert "its worker stopped responding" in run.reason
    assert not RunStep.objects.filter(run=run).exists()  # the ended attempt's steps are gone
    assert sent[-1][:2] == (run.pk, 2)


def test_a_finished_part_or_one_of_an_older_attempt_says_nothing(
    owner, sent, django_capture_on_commit_callbacks
):
    run = _leased(owner, django_capture_on_commit_callbacks)
    old = timezone.now() - timedelta(hours=1)
    RunStep.objects.create(run=run, attempt=1, name="nist:0", heartbeat_at=old, finished=True)
    Run.objects.filter(pk=run.pk).update(attempt=2)  # as if attempt 1 had been given up
    RunStep.objects.create(run=run, attempt=1, name="nist:50000", heartbeat_at=old)
    Run.objects.filter(pk=run.pk).update(attempt=1)
    RunStep.objects.filter(name="nist:50000").update(attempt=0)
    assert run_sweep().retried == 0


def test_a_part_records_its_step_beats_and_finishes_it(
    owner, sent, django_capture_on_commit_callbacks, settings, transactional_db
):
    settings.RUNS_HEARTBEAT_SECONDS = 0.05
    run = _leased(owner, django_capture_on_commit_callbacks)
    seen = {}

    def part(context):
        step = RunStep.objects.get(run_id=run.pk, name="amber:0")
        seen["while"] = (step.finished, step.heartbeat_at)
        # The step's own heartbeat moves its time (waited for, up to five seconds).
        seen["beat"] = wait_for(
            lambda: (at := RunStep.objects.get(pk=step.pk).heartbeat_at) > step.heartbeat_at and at,
            timeout=5,
            what="the step's heartbeat",
            every=0.01,
        )

    run_continue(run_id=run.pk, attempt=1, step=part, ends_run=False, step_name="amber:0")
    assert seen["while"][0] is False and seen["beat"] > seen["while"][1]
    assert RunStep.objects.get(run_id=run.pk, name="amber:0").finished
    assert run_sweep().retried == 0


def test_a_chord_whose_callback_was_lost_is_retried_once_its_parts_are_done(
    owner, sent, django_capture_on_commit_callbacks
):
    run = _leased(owner, django_capture_on_commit_callbacks)
    RunContext(Run.objects.get(pk=run.pk)).expect_parts(2)
    old = timezone.now() - timedelta(seconds=31)
    RunStep.objects.create(run=run, attempt=1, name="bleu:0", heartbeat_at=old, finished=True)
    assert run_sweep().retried == 0  # one part still waits in the queue: the lease covers it
    RunStep.objects.create(run=run, attempt=1, name="bleu:3", heartbeat_at=old, finished=True)
    RunStep.objects.create(run=run, attempt=1, name=FINISH_STEP, heartbeat_at=old, finished=True)
    assert run_sweep().retried == 0  # the callback ran (its run ends with it)
    RunStep.objects.filter(name=FINISH_STEP).delete()
    RunStep.objects.filter(name="bleu:3").update(heartbeat_at=timezone.now())
    assert run_sweep().retried == 0  # the last part ended a moment ago: the callback is due
    RunStep.objects.filter(name="bleu:3").update(heartbeat_at=old)
    with django_capture_on_commit_callbacks(execute=True):
        assert run_sweep().retried == 1
    run.refresh_from_db()
    assert (run.state, run.attempt, run.parts) == ("queued", 2, 0)
