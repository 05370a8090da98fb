"""A broker that cannot be reached never turns a request into a 500 after its rows were written:
the work waits as queued, and the periodic sweeps send it once the broker is back."""

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from annotate.models import Job
from annotate.services.jobs import job_create, job_enqueue, job_register_task, job_requeue_stale
from annotate.tasks import dataset_compute_stats_task
from deltableu.celery import app
from scoring.models import Submission
from scoring.services.scoring import submissions_requeue_stuck

pytestmark = pytest.mark.django_db
GOOD = b"the cat sat on a mat\nwhat a great match\nsee you then\ni love cheese pizza\n"


def _fresh_connections():
    # Pooled connections to the live broker (CI's Redis) would still publish: forget them (not
    # closed: producers made from them elsewhere in the session may still hold them).
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def broker_down(monkeypatch):
    # Nothing listens on port 9; publishing retries briefly, then gives up.
    _fresh_connections()
    # Celery reads CELERY_BROKER_URL from the environment before its own settings.
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:9/0")
    monkeypatch.setitem(app.conf, "broker_url", "redis://127.0.0.1:9/0")
    monkeypatch.setitem(app.conf, "broker_transport_options", {})
    monkeypatch.setitem(app.conf, "broker_connection_timeout", 1)
    yield
    _fresh_connections()


def test_a_submission_waits_for_a_worker_instead_of_a_500(
    broker_down, make_leaderboard, other, client_for, django_capture_on_commit_callbacks, caplog
):
    board = make_leaderboard()
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(other).post(
            f"/api/v1/leaderboards/{board.slug}/submissions/",
            {"file": SimpleUploadedFile("out.txt", GOOD), "method": "m"},
        )
    assert response.status_code == 201, response.content
    assert "broker unreachable, scoring.tasks.score_submission" in caplog.text
    submission = Submission.objects.get()
    assert submission.status == "queued"
    # The sweep sends it again once it has waited long enough.
    Submission.objects.filter(pk=submission.pk).update(
        queued_at=timezone.now() - timedelta(minutes=11)
    )
    assert submissions_requeue_stuck(older_than=timedelta(minutes=10)) == [submission.pk]


def test_a_job_created_while_the_broker_is_down_is_sent_by_the_sweep(
    broker_down, owner, django_capture_on_commit_callbacks
):
    job_register_task("outage-test", "annotate.tasks.outage_test")
    with django_capture_on_commit_callbacks(execute=True):
        job = job_create(kind="outage-test", owner=owner)
        job_enqueue(job=job, task=dataset_compute_stats_task)
    assert Job.objects.get(pk=job.pk).status == "queued"
    sent = []
    assert job_requeue_stale(older_than=timedelta(minutes=10), send=lambda *a: sent.append(a)) == 0
    Job.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(minutes=11))
    assert job_requeue_stale(older_than=timedelta(minutes=10), send=lambda *a: sent.append(a)) == 1
    assert sent == [("annotate.tasks.outage_test", job.pk)]
    job.refresh_from_db()
    assert (job.status, job.message) == ("queued", "Waiting for a worker.")
    # Sent just now: the next sweep leaves it alone.
    assert job_requeue_stale(older_than=timedelta(minutes=10), send=lambda *a: sent.append(a)) == 0
