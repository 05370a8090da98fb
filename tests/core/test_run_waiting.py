"""A queued run says why it waits when no live worker takes its queue (from the workers' own
heartbeats), everywhere it is shown, and when the broker has not accepted its message; the
heartbeats are read once in a while, never per run. (tests/integration/test_run_waiting.py
starts real workers.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from core.runs import kinds
from core.runs.kinds import HEAVY_QUEUE
from core.runs.models import Run
from core.runs.queue_selectors import WAIT_WARNING_SECONDS, queue_consumers, waiting_reason
from tests.core.run_kind_kit import TEST_KIND, new_run
from tests.runs_kit import execute, live_workers, waited

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("test_kind")]

HEAVY_KIND = kinds.RunKind(name="test-heavy-kind", body=TEST_KIND.body, weight=HEAVY_QUEUE)


@pytest.fixture
def heavy_kind(monkeypatch):
    monkeypatch.setitem(kinds._KINDS, HEAVY_KIND.name, HEAVY_KIND)


def _heavy_run(owner, django_capture_on_commit_callbacks):
    from core.runs.engine import run_create

    with django_capture_on_commit_callbacks(execute=True):
        return run_create(kind=HEAVY_KIND.name, owner=owner)


@pytest.mark.usefixtures("heavy_kind")
def test_a_heavy_run_with_only_a_light_worker_says_it_waits_for_a_heavy_one(
    owner, sent, django_capture_on_commit_callbacks, settings
):
    live_workers([settings.CELERY_TASK_DEFAULT_QUEUE])
    run = waited(_heavy_run(owner, django_capture_on_commit_callbacks))
    reason = waiting_reason(run)
    assert f"No running worker takes heavy work (queue {settings.CELERY_HEAVY_QUEUE})" in reason
    assert f"the running workers take only {settings.CELERY_TASK_DEFAULT_QUEUE}." in reason
    assert "`make worker`" in reason
    queues = f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.CELERY_HEAVY_QUEUE}"
    assert f"`celery -A deltableu worker -Q {queues}`" in reason


@pytest.mark.usefixtures("heavy_kind")
def test_a_heavy_worker_running_means_no_warning(
    owner, sent, django_capture_on_commit_callbacks, settings
):
    live_workers([settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_HEAVY_QUEUE])
    run = waited(_heavy_run(owner, django_capture_on_commit_callbacks))
    assert waiting_reason(run) == ""


def test_a_light_run_with_no_worker_at_all_names_the_light_queue(
    owner, sent, django_capture_on_commit_callbacks, settings
):
    live_workers([])
    run = waited(new_run(owner, django_capture_on_commit_callbacks))
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    reason = waiting_reason(run)
    assert f"No running worker takes light work (queue {queue})" in reason
    assert "no worker is running at all" in reason
    live_workers([settings.CELERY_HEAVY_QUEUE])  # a heavy-only worker: still none
    assert f"(queue {queue})" in waiting_reason(run)


def test_a_worker_whose_heartbeat_stopped_is_no_consumer(
    owner, sent, django_capture_on_commit_callbacks, settings
):
    from core.runs.models import Worker

    live_workers([settings.CELERY_TASK_DEFAULT_QUEUE])
    run = waited(new_run(owner, django_capture_on_commit_callbacks))
    assert waiting_reason(run) == ""
    Worker.objects.update(beat_at=timezone.now() - timedelta(minutes=1))  # killed a minute ago
    cache.clear()
    assert "No running worker takes light work" in waiting_reason(run)


def test_a_run_queued_moments_ago_or_no_longer_queued_reads_no_heartbeat(
    owner, sent, django_capture_on_commit_callbacks, django_assert_num_queries
):
    live_workers([])
    run = Run.objects.get(pk=new_run(owner, django_capture_on_commit_callbacks).pk)
    almost = run.dispatched_at + timedelta(seconds=WAIT_WARNING_SECONDS - 1)
    with django_assert_num_queries(0):
        assert waiting_reason(run) == ""  # just sent: a worker picks it up at once
        assert waiting_reason(run, now=almost) == ""
    with django_assert_num_queries(1):
        assert waiting_reason(run, now=almost + timedelta(seconds=2)) != ""
    ended = execute(waited(run))
    assert ended.state == "succeeded" and waiting_reason(ended) == ""


def test_the_answer_is_cached_briefly_so_a_list_reads_the_heartbeats_once(
    owner, sent, django_capture_on_commit_callbacks, settings, django_assert_num_queries
):
    live_workers([settings.CELERY_HEAVY_QUEUE])
    runs = [waited(new_run(owner, django_capture_on_commit_callbacks)) for _ in range(3)]
    with django_assert_num_queries(1):
        assert all(waiting_reason(run) for run in runs)
        assert queue_consumers() == {settings.CELERY_HEAVY_QUEUE}


def test_the_api_and_the_pages_say_why_a_run_waits(
    owner, client_for, sent, django_capture_on_commit_callbacks
):
    live_workers([])
    run = waited(new_run(owner, django_capture_on_commit_callbacks))
    client = client_for(owner)
    detail = client.get(f"/api/v1/runs/{run.pk}/").json()
    assert detail["state"] == "queued"
    assert detail["waiting_reason"].startswith("No running worker takes light work")
    listed = client.get("/api/v1/runs/").json()["results"]
    assert listed[0]["waiting_reason"] == detail["waiting_reason"]
    assert detail["waiting_reason"] in client.get("/runs/").content.decode()


def test_a_run_the_broker_never_accepted_says_so_whatever_the_workers(
    owner, client_for, django_capture_on_commit_callbacks, monkeypatch, settings
):
    from kombu.exceptions import OperationalError

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr("core.runs.tasks.execute_run_task.apply_async", refuse)
    live_workers([settings.CELERY_TASK_DEFAULT_QUEUE])  # alive, but nothing reaches them
    run = new_run(owner, django_capture_on_commit_callbacks)
    Run.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(minutes=1))
    response = client_for(owner).get(f"/api/v1/runs/{run.pk}/")
    assert response.status_code == 200
    reason = response.json()["waiting_reason"]
    assert reason.startswith("The broker has not accepted it yet")
    page = client_for(owner).get("/runs/")
    assert page.status_code == 200 and reason in page.text


def test_an_ended_run_says_nothing(owner, sent, django_capture_on_commit_callbacks):
    live_workers([])
    run = execute(new_run(owner, django_capture_on_commit_callbacks))
    later = timezone.now() + timedelta(hours=1)
    assert run.state == "succeeded" and waiting_reason(run, now=later) == ""


def test_the_runs_command_says_why_a_queued_run_waits(
    owner, sent, django_capture_on_commit_callbacks, settings
):
    from io import StringIO

    from django.core.management import call_command

    live_workers([settings.CELERY_HEAVY_QUEUE])
    run = waited(new_run(owner, django_capture_on_commit_callbacks), seconds=120)
    out = StringIO()
    call_command("runs", stdout=out)
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    assert f"{run.pk:>6}  " in out.getvalue()
    assert f"waiting: No running worker takes light work (queue {queue})" in out.getvalue()
