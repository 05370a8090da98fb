"""A broker that cannot be reached never turns a request into a 500 after its rows were written:
the run waits in the outbox, nothing is charged, and the sweep sends it once the broker is back."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from core.runs.models import Run
from core.runs.sweep import run_sweep
from deltableu.celery import app
from scoring.leaderboards.models import Submission
from tests.runs_kit import execute, upload

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
    # Every attempt is still made; only kombu's pauses between them (~1 s in all) are skipped.
    monkeypatch.setattr("kombu.utils.functional.sleep", lambda seconds: None)
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
    assert "broker unreachable, runs.execute" in caplog.text
    body = response.json()
    assert (body["status"], body["status_text"], body["charged"]) == (
        "queued",
        "Waiting for a worker",
        False,
    )
    submission = Submission.objects.select_related("run").get()
    assert submission.run.dispatched_at is None  # in the outbox
    page = client_for(other).get(f"/leaderboards/submissions/{submission.pk}/")
    assert "Waiting for a worker" in page.content.decode()
    # Still down: the sweep tries and leaves it in the outbox.
    assert run_sweep().dispatched == 0
    assert Run.objects.get(pk=submission.run_id).dispatched_at is None


def test_the_sweep_sends_the_outbox_once_the_broker_is_back(
    make_leaderboard, other, django_capture_on_commit_callbacks, monkeypatch
):
    board = make_leaderboard()
    with django_capture_on_commit_callbacks(execute=False):  # as if the broker had refused it
        submission = upload(board, other, GOOD, method="m")
    sent = []
    monkeypatch.setattr(
        "core.runs.tasks.execute_run_task.apply_async", lambda args, **kw: sent.append(args)
    )
    assert run_sweep().dispatched == 1
    assert sent == [(submission.run_id, 1)]
    assert run_sweep().dispatched == 0  # sent: the next sweep leaves it alone
    assert not Submission.objects.get(pk=submission.pk).charged
    execute(submission.run_id)  # the worker takes it: now it is charged and scored
    submission.refresh_from_db()
    assert (submission.status, submission.charged) == ("finished", True)
