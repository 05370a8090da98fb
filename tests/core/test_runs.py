"""The run engine: after-commit dispatch, the outbox, attempts and fencing, retries to a reasoned
failure, refusals, cooperative cancel, temporary files, heartbeats and a chord's failure."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.utils import timezone

from core.runs import engine, kinds
from core.runs.context import RunContext
from core.runs.engine import run_cancel, run_claim, run_continue, run_create, run_retry
from core.runs.errors import RunCancelled, RunFenced
from core.runs.kinds import RunKind
from core.runs.models import Run
from core.runs.sweep import run_sweep, run_sweep_local_files
from core.runs.tasks import chord_failed_task
from core.runs.tempfiles import tmp_folder
from tests.core.run_kind_kit import ENDED, SEEN, leftovers, new_run
from tests.runs_kit import execute
from tests.workers import wait_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("test_kind")]


def test_work_is_sent_only_after_its_transaction_commits(
    owner, sent, django_capture_on_commit_callbacks, settings
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = run_create(kind="test-kind", owner=owner)
        assert sent == []  # inside the transaction: nothing reached the broker
    for callback in callbacks:
        callback()
    assert sent == [(run.pk, 1, settings.CELERY_TASK_DEFAULT_QUEUE, None)]
    assert Run.objects.get(pk=run.pk).dispatched_at is not None


def test_a_run_succeeds_with_progress_timings_and_no_files_left(
    owner, sent, django_capture_on_commit_callbacks
):
    run = execute(new_run(owner, django_capture_on_commit_callbacks))
    assert (run.state, run.attempt, run.percent, run.result) == ("succeeded", 1, 100, {"steps": 3})
    assert set(run.stage_timings) == {"work"} and run.started_at <= run.finished_at
    assert ENDED == ["succeeded"] and leftovers(run.pk, 1) == []


def test_a_stages_timing_rides_on_the_next_write(
    owner, sent, django_capture_on_commit_callbacks, django_assert_num_queries
):
    run = new_run(owner, django_capture_on_commit_callbacks)
    assert run_claim(run.pk, 1)
    context = RunContext(Run.objects.get(pk=run.pk))
    with django_assert_num_queries(1), context.stage("load"):  # its start's message only
        pass
    assert Run.objects.get(pk=run.pk).stage_timings == {}
    context.progress(1, 2)
    assert set(Run.objects.get(pk=run.pk).stage_timings) == {"load"}


def test_a_duplicate_message_does_nothing(owner, sent, django_capture_on_commit_callbacks):
    run = new_run(owner, django_capture_on_commit_callbacks)
    assert engine.run_execute(run_id=run.pk, attempt=1) is True  # claimed and run here
    assert engine.run_execute(run_id=run.pk, attempt=1) is False  # said so: not claimed again
    assert [(run.pk, 1)] == SEEN


def test_an_unreachable_broker_leaves_the_run_in_the_outbox(
    owner, monkeypatch, django_capture_on_commit_callbacks
):
    from kombu.exceptions import OperationalError

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr("core.runs.tasks.execute_run_task.apply_async", refuse)
    run = new_run(owner, django_capture_on_commit_callbacks)  # no exception reaches the caller
    run.refresh_from_db()
    assert (run.state, run.dispatched_at, run.status_text) == (
        "queued",
        None,
        "Waiting for a worker",
    )
    assert run_sweep().dispatched == 0  # still down
    accepted = []
    monkeypatch.setattr(
        "core.runs.tasks.execute_run_task.apply_async", lambda args, **kw: accepted.append(args)
    )
    assert run_sweep().dispatched == 1 and accepted == [(run.pk, 1)]
    assert run_sweep().dispatched == 0  # sent once, not at every sweep


def test_a_task_that_always_fails_fails_after_three_attempts_with_its_reason(
    owner, sent, django_capture_on_commit_callbacks, settings
):
    run = new_run(owner, django_capture_on_commit_callbacks, fail="the disk is full")
    for _ in range(5):  # more deliveries than attempts: it never loops
        with django_capture_on_commit_callbacks(execute=True):
            execute(run)
    run.refresh_from_db()
    assert (run.state, run.attempt, run.refused) == ("failed", 3, False)
    assert run.reason == "Failed after 3 attempts. Last: RuntimeError: the disk is full"
    assert [(run.pk, 1), (run.pk, 2), (run.pk, 3)] == SEEN
    backoff = settings.RUNS_RETRY_BACKOFF_SECONDS
    assert [m[1:] for m in sent[1:]] == [
        (2, settings.CELERY_TASK_DEFAULT_QUEUE, backoff),
        (3, settings.CELERY_TASK_DEFAULT_QUEUE, 2 * backoff),
    ]
    assert ENDED == ["failed"] and all(leftovers(run.pk, a) == [] for a in (1, 2, 3))


def test_a_refused_input_fails_at_once(
    owner, sent, django_capture_on_commit_callbacks, monkeypatch
):
    refusing = RunKind(name="test-refuse", body=lambda run: int("x"), refusals=(ValueError,))
    monkeypatch.setitem(kinds._KINDS, refusing.name, refusing)
    with django_capture_on_commit_callbacks(execute=True):
        run = run_create(kind="test-refuse", owner=owner)
    run = execute(run)
    assert (run.state, run.attempt, run.refused) == ("failed", 1, True)
    assert "invalid literal" in run.reason


def test_a_silent_attempt_is_retried_and_its_late_worker_fenced(
    owner, sent, django_capture_on_commit_callbacks
):
    run = new_run(owner, django_capture_on_commit_callbacks)
    assert run_claim(run.pk, 1)
    late = RunContext(Run.objects.get(pk=run.pk))  # the worker that will be "killed"
    late.tmpdir.joinpath("scratch").write_text("left by a killed worker")
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=29))
    assert run_sweep().retried == 0  # within the grace
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=31))
    with django_capture_on_commit_callbacks(execute=True):
        assert run_sweep().retried == 1
    run.refresh_from_db()
    assert (run.state, run.attempt) == ("queued", 2)
    assert "its worker stopped responding" in run.reason
    assert sent[-1][:2] == (run.pk, 2)
    assert not tmp_folder(run.pk, 1).exists()  # the dead attempt's files went with it
    with pytest.raises(RunFenced):
        late.progress(2, 3)
    with pytest.raises(RunFenced), late.fenced():
        pass
    assert execute(run).state == "succeeded" and [(run.pk, 2)] == SEEN


def test_a_long_silent_step_keeps_beating(
    owner, sent, django_capture_on_commit_callbacks, settings, transactional_db
):
    settings.RUNS_HEARTBEAT_SECONDS = 0.05
    run = new_run(owner, django_capture_on_commit_callbacks)
    assert run_claim(run.pk, 1)
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))

    def silent(context):
        # No progress report at all: the heartbeat alone moves the run's time.
        def beat():
            at = Run.objects.get(pk=run.pk).heartbeat_at
            return at if at > timezone.now() - timedelta(seconds=5) else None

        return wait_for(beat, timeout=5, what="a heartbeat", every=0.01)

    beat = run_continue(run_id=run.pk, attempt=1, step=silent, ends_run=False)
    assert beat > timezone.now() - timedelta(seconds=5)


def test_cancel_stops_a_queued_run_at_once_and_a_running_one_at_its_next_report(
    owner, sent, django_capture_on_commit_callbacks
):
    queued = new_run(owner, django_capture_on_commit_callbacks)
    assert run_cancel(run=queued) and queued.state == "cancelled"
    assert execute(queued).state == "cancelled" and SEEN == []  # its message does nothing

    running = new_run(owner, django_capture_on_commit_callbacks)
    assert run_claim(running.pk, 1)
    context = RunContext(Run.objects.get(pk=running.pk))
    context.tmpdir.joinpath("half").write_text("half-written")
    run_cancel(run=running)
    with pytest.raises(RunCancelled):
        context.progress(1, 3)

    def step(ctx):
        ctx.progress(1, 3)

    run_continue(run_id=running.pk, attempt=1, step=step, ends_run=True)
    running.refresh_from_db()
    assert (running.state, running.reason) == ("cancelled", "Cancelled by its owner.")
    assert not tmp_folder(running.pk, 1).exists()


def test_a_failed_chord_part_fails_the_attempt(owner, sent, django_capture_on_commit_callbacks):
    run = new_run(owner, django_capture_on_commit_callbacks)
    assert run_claim(run.pk, 1)

    def broken_part(ctx):
        raise OSError("lost a disk")

    with pytest.raises(OSError):  # re-raised, so that the chord stops and its errback runs
        run_continue(run_id=run.pk, attempt=1, step=broken_part, ends_run=False)
    run.refresh_from_db()
    assert (run.state, run.attempt) == ("queued", 2)
    assert run.reason == "Attempt 1 failed: OSError: lost a disk"
    chord_failed_task(run.pk, 1)  # the chord's error callback: the attempt has moved on
    assert Run.objects.get(pk=run.pk).attempt == 2
    assert run_claim(run.pk, 2)
    chord_failed_task(run.pk, 2)  # a part of the live attempt failed
    run.refresh_from_db()
    assert (run.state, run.attempt, run.reason) == (
        "queued",
        3,
        "Attempt 2 failed: a part of its work failed",
    )


def test_an_operator_retries_a_failed_run(owner, sent, django_capture_on_commit_callbacks):
    run = new_run(owner, django_capture_on_commit_callbacks, fail="flaky")
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            execute(run)
        assert not run_retry(run=new_run(owner, django_capture_on_commit_callbacks))  # not failed
        assert run_retry(run=run)
    assert (run.state, run.attempt, run.max_attempts, run.refused) == ("queued", 4, 6, False)
    assert sent[-1][:2] == (run.pk, 4)


def test_a_starting_worker_removes_orphaned_folders(
    owner, sent, django_capture_on_commit_callbacks
):
    live = new_run(owner, django_capture_on_commit_callbacks)
    assert run_claim(live.pk, 1)
    tmp_folder(live.pk, 1).mkdir(parents=True)
    tmp_folder(live.pk + 1000, 1).mkdir(parents=True)  # of a run that ended long ago
    assert run_sweep_local_files() == 1
    assert tmp_folder(live.pk, 1).exists() and not tmp_folder(live.pk + 1000, 1).exists()


@pytest.mark.parametrize("who, visible", [("owner", True), ("other", False), ("rater", False)])
def test_a_run_is_seen_and_cancelled_by_its_owner_only(
    who, visible, owner, other, rater, client_for, sent, django_capture_on_commit_callbacks
):
    run = new_run(owner, django_capture_on_commit_callbacks)
    client = client_for({"owner": owner, "other": other, "rater": rater}[who])
    listed = [r["id"] for r in client.get("/api/v1/runs/").json()["results"]]
    assert listed == ([run.pk] if visible else [])
    detail = client.get(f"/api/v1/runs/{run.pk}/")
    assert detail.status_code == (200 if visible else 404)
    cancel = client.post(f"/api/v1/runs/{run.pk}/cancel/")
    assert cancel.status_code == (200 if visible else 404)
    assert Run.objects.get(pk=run.pk).state == ("cancelled" if visible else "queued")
    assert client.post(f"/api/v1/runs/{run.pk}/retry/").status_code == (409 if visible else 404)
    page = client.get("/runs/").content.decode()
    assert (f'id="run-{run.pk}"' in page) is visible


def test_a_filter_that_cannot_match_is_named(
    owner, client_for, sent, django_capture_on_commit_callbacks
):
    # An unknown state listed every run while an unknown kind listed none.
    run = new_run(owner, django_capture_on_commit_callbacks)
    client = client_for(owner)
    bogus = client.get("/api/v1/runs/?state=bogus&kind=bogus")
    assert bogus.status_code == 400 and set(bogus.json()) == {"state", "kind"}
    assert "queued" in bogus.json()["state"][0]
    found = client.get(f"/api/v1/runs/?state=queued&kind={run.kind}").json()["results"]
    assert [r["id"] for r in found] == [run.pk]
    assert client.get("/api/v1/runs/?state=failed").json()["results"] == []


def test_anonymous_sees_no_runs(client, owner, sent, django_capture_on_commit_callbacks):
    run = new_run(owner, django_capture_on_commit_callbacks)
    assert client.get("/api/v1/runs/").status_code in (401, 403)
    assert client.get(f"/api/v1/runs/{run.pk}/").status_code in (401, 403)
    assert client.get("/runs/").status_code == 302


def test_the_runs_page_shows_state_attempt_timings_and_reason(
    owner, client_for, sent, django_capture_on_commit_callbacks
):
    run = new_run(owner, django_capture_on_commit_callbacks, fail="the disk is full")
    for _ in range(3):
        execute(run)
    page = client_for(owner).get("/runs/?state=failed").content.decode()
    assert "3 of 3" in page and "Failed after 3 attempts" in page and "the disk is full" in page
    body = client_for(owner).get(f"/api/v1/runs/{run.pk}/").json()
    assert (body["state"], body["attempt"], body["refused"]) == ("failed", 3, False)


def test_the_runs_command_lists_retries_and_cancels(
    owner, sent, django_capture_on_commit_callbacks
):
    from django.core.management import CommandError, call_command

    failed = new_run(owner, django_capture_on_commit_callbacks, fail="boom")
    for _ in range(3):
        execute(failed)
    fine = execute(new_run(owner, django_capture_on_commit_callbacks))
    out = io.StringIO()
    call_command("runs", stdout=out)
    assert f"{failed.pk:>6}  test-kind" in out.getvalue() and "boom" in out.getvalue()
    assert f"{fine.pk:>6}  test-kind" not in out.getvalue()  # only stuck or failed ones
    call_command("runs", "--retry", str(failed.pk), stdout=out)
    assert Run.objects.get(pk=failed.pk).state == "queued"
    call_command("runs", "--cancel", str(failed.pk), stdout=out)
    assert Run.objects.get(pk=failed.pk).state == "cancelled"
    with pytest.raises(CommandError, match="only a failed run is retried"):
        call_command("runs", "--retry", str(fine.pk))
    with pytest.raises(CommandError, match="No run 999999"):
        call_command("runs", "--cancel", "999999")


@pytest.mark.parametrize("limit", ["0", "-1", "10001", "100000000000000000000000"])
def test_the_runs_command_refuses_a_limit_out_of_range(limit):
    from django.core.management import CommandError, call_command

    # 0 and -1 listed one run; a number past the database's integers was an IntegrityError.
    with pytest.raises(CommandError, match=r"^--limit must be 1 … 10,000; -?\d+ is not\.$"):
        call_command("runs", "--all", "--limit", limit)


def test_parts_advance_the_count_atomically(owner, sent, django_capture_on_commit_callbacks):
    run = new_run(owner, django_capture_on_commit_callbacks)
    assert run_claim(run.pk, 1)
    first, second = (RunContext(Run.objects.get(pk=run.pk)) for _ in range(2))
    first.progress(0, 4)
    first.advance()
    second.advance(2)  # another process's part: neither overwrites the other's count
    assert Run.objects.get(pk=run.pk).done == 3
