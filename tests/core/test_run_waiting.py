"""A queued run says why it waits when no running worker takes its queue, everywhere it is
shown; the workers are asked once in a while, briefly, and a broker that cannot be asked is
said, never a 500. (tests/integration/test_run_waiting.py asks real workers.)"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from core.runs import kinds
from core.runs.kinds import HEAVY_QUEUE
from core.runs.models import Run
from core.runs.queue_selectors import WAIT_WARNING_SECONDS, queue_consumers, waiting_reason
from tests.core.run_kind_kit import TEST_KIND, new_run
from tests.runs_kit import StubWorkers, execute, unreachable_broker, waited

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
    owner, sent, django_capture_on_commit_callbacks, monkeypatch, settings
):
    StubWorkers(monkeypatch, [settings.CELERY_TASK_DEFAULT_QUEUE])
    run = waited(_heavy_run(owner, django_capture_on_commit_callbacks))
    reason = waiting_reason(run)
    assert f"No running worker takes heavy work (queue {settings.CELERY_HEAVY_QUEUE})" in reason
    assert "`make worker`" in reason
    queues = f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.CELERY_HEAVY_QUEUE}"
    assert f"`celery -A deltableu worker -Q {queues}`" in reason


@pytest.mark.usefixtures("heavy_kind")
def test_a_heavy_worker_running_means_no_warning(
    owner, sent, django_capture_on_commit_callbacks, monkeypatch, settings
):
    StubWorkers(monkeypatch, [settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_HEAVY_QUEUE])
    run = waited(_heavy_run(owner, django_capture_on_commit_callbacks))
    assert waiting_reason(run) == ""


def test_a_light_run_with_no_worker_at_all_names_the_light_queue(
    owner, sent, django_capture_on_commit_callbacks, monkeypatch, settings
):
    StubWorkers(monkeypatch, [])
    run = waited(new_run(owner, django_capture_on_commit_callbacks))
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    assert f"No running worker takes light work (queue {queue})" in waiting_reason(run)
    StubWorkers(monkeypatch, [settings.CELERY_HEAVY_QUEUE])  # a heavy-only worker: still none
    assert f"(queue {queue})" in waiting_reason(run)


def test_a_run_queued_moments_ago_or_no_longer_queued_asks_nobody(
    owner, sent, django_capture_on_commit_callbacks, monkeypatch
):
    workers = StubWorkers(monkeypatch, [])
    run = Run.objects.get(pk=new_run(owner, django_capture_on_commit_callbacks).pk)
    assert waiting_reason(run) == ""  # just sent: a worker picks it up at once
    almost = run.dispatched_at + timedelta(seconds=WAIT_WARNING_SECONDS - 1)
    assert waiting_reason(run, now=almost) == ""
    assert workers.asked == 0
    assert waiting_reason(run, now=almost + timedelta(seconds=2)) != ""
    assert workers.asked == 1
    ended = execute(waited(run))
    assert ended.state == "succeeded" and waiting_reason(ended) == ""


def test_the_answer_is_cached_briefly_so_the_broker_is_asked_once(
    owner, sent, django_capture_on_commit_callbacks, monkeypatch, settings
):
    workers = StubWorkers(monkeypatch, [settings.CELERY_HEAVY_QUEUE])
    runs = [waited(new_run(owner, django_capture_on_commit_callbacks)) for _ in range(3)]
    assert all(waiting_reason(run) for run in runs)
    assert queue_consumers() == {settings.CELERY_HEAVY_QUEUE}
    assert workers.asked == 1


def test_the_api_and_the_pages_say_why_a_run_waits(
    owner, client_for, sent, django_capture_on_commit_callbacks, monkeypatch
):
    StubWorkers(monkeypatch, [])
    run = waited(new_run(owner, django_capture_on_commit_callbacks))
    client = client_for(owner)
    detail = client.get(f"/api/v1/runs/{run.pk}/").json()
    assert detail["state"] == "queued"
    assert detail["waiting_reason"].startswith("No running worker takes light work")
    listed = client.get("/api/v1/runs/").json()["results"]
    assert listed[0]["waiting_reason"] == detail["waiting_reason"]
    assert detail["waiting_reason"] in client.get("/runs/").content.decode()


def test_an_unreachable_broker_is_said_quickly_and_never_a_500(
    owner, client_for, sent, django_capture_on_commit_callbacks, monkeypatch
):
    run = waited(new_run(owner, django_capture_on_commit_callbacks))
    unreachable_broker(monkeypatch)
    started = time.monotonic()
    response = client_for(owner).get(f"/api/v1/runs/{run.pk}/")
    assert time.monotonic() - started < 3
    assert response.status_code == 200
    assert response.json()["waiting_reason"].startswith(
        "Cannot tell whether a worker is running: the broker did not answer."
    )
    page = client_for(owner).get("/runs/")
    assert page.status_code == 200 and "Cannot tell whether a worker is running" in page.text
    assert queue_consumers() is None  # and remembered: the next view does not wait again


def test_an_ended_run_says_nothing(owner, sent, django_capture_on_commit_callbacks, monkeypatch):
    StubWorkers(monkeypatch, [])
    run = execute(new_run(owner, django_capture_on_commit_callbacks))
    later = timezone.now() + timedelta(hours=1)
    assert run.state == "succeeded" and waiting_reason(run, now=later) == ""
