"""The run engine under real faults, with real workers: a broker stopped while a submission
arrives, and work that always fails."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from core.runs.models import Run
from deltableu.celery import app
from scoring.leaderboards.models import Submission
from tests.runs_kit import upload
from tests.workers import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
GOOD = b"the cat sat on a mat\nwhat a great match\nsee you then\ni love cheese pizza\n"


class PrivateRedis:
    """A redis-server process of this test's own, to stop and start at will (never CI's)."""

    def __init__(self, folder) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.folder, self.process = folder, None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        def answers() -> bool:
            with socket.socket() as client:
                return client.connect_ex(("127.0.0.1", self.port)) == 0

        wait_for(answers, timeout=20, what="redis-server")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def private_redis(tmp_path, monkeypatch):
    if shutil.which("redis-server") is None:
        # `make test` installs it (make redis); a broker outage is never faked, so without it
        # this test fails, naming what to install.
        pytest.fail("the broker-outage test needs redis-server: run `make redis` or install it")
    redis = PrivateRedis(tmp_path)
    redis.start()
    # This process publishes to it too (pools forgotten, as in the unit outage tests).
    app._pool = None
    app.amqp._producer_pool = None
    monkeypatch.setenv("CELERY_BROKER_URL", redis.url)
    monkeypatch.setitem(app.conf, "broker_url", redis.url)
    monkeypatch.setitem(app.conf, "broker_transport_options", {"visibility_timeout": 7200})
    monkeypatch.setitem(app.conf, "broker_connection_timeout", 1)
    yield redis
    redis.stop()
    app._pool = None
    app.amqp._producer_pool = None


def test_a_broker_stopped_during_a_submission_costs_nothing_and_the_run_finishes_after(
    private_redis, start_worker, make_leaderboard, client_for, other
):
    worker = start_worker(
        CELERY_BROKER_URL=private_redis.url, WITH_BEAT="1", RUNS_SWEEP_SECONDS="3"
    )
    try:
        _submit_during_an_outage(private_redis, make_leaderboard, client_for, other)
    finally:
        # Its beat shares the database's schedule: one left running would stamp the sweep as
        # sent (to this test's stopped broker) and starve the next test's beat.
        worker.stop()


def _submit_during_an_outage(private_redis, make_leaderboard, client_for, other):
    board = make_leaderboard()
    private_redis.stop()
    response = client_for(other).post(
        f"/api/v1/leaderboards/{board.slug}/submissions/",
        {"file": SimpleUploadedFile("out.txt", GOOD), "method": "m"},
    )
    assert response.status_code == 201, response.content  # no 500
    body = response.json()
    assert (body["status"], body["status_text"], body["charged"]) == (
        "queued",
        "Waiting for a worker",
        False,
    )
    assert Run.objects.get(pk=body["run"]).dispatched_at is None  # in the outbox
    time.sleep(2)
    private_redis.start()  # the broker is back: the sweep sends the outbox
    wait_for(
        lambda: Submission.objects.filter(pk=body["id"], status="finished").exists(),
        timeout=120,
        what="the run sent after the outage",
    )
    submission = Submission.objects.select_related("run").get(pk=body["id"])
    assert (submission.charged, submission.run.attempt, submission.scores.count()) == (True, 1, 3)


def test_work_that_always_fails_fails_after_three_attempts_with_its_reason(
    celery_worker_process, make_leaderboard, other
):
    board = make_leaderboard()
    with transaction.atomic():  # the run is sent when this commits
        submission = upload(board, other, GOOD, method="m")
        # The stored file is lost before any worker reads it: every attempt fails alike.
        submission.file.storage.delete(submission.file.name)
    wait_for(
        lambda: Run.objects.filter(pk=submission.run_id, state="failed").exists(),
        timeout=120,
        what="three failed attempts",
    )
    run = Run.objects.get(pk=submission.run_id)
    submission.refresh_from_db()
    assert run.attempt == 3 and run.reason.startswith("Failed after 3 attempts. Last: ")
    assert "FileNotFoundError" in run.reason
    assert (submission.status, submission.charged) == ("failed", False)
    assert "quota was not charged" in submission.error
