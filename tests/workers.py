"""Real Celery worker processes for the integration and browser tests (a pytest plugin).

They run the project's own code against the test database (SQLite file or PostgreSQL) and the
configured broker (file system, or Redis in CI), exactly as `make run` and production do.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
import uuid
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings

from deltableu.celery import app, worker_command

WORKER_START_SECONDS = 60
# How long a test waits at its end for the work it started (debounced tasks included).
WORKER_IDLE_SECONDS = 60
# The log must stay still this long: longer than the brokers' polling (0.2 s for the file
# system's), so that a task still queued behind the last one has been received.
WORKER_QUIET_SECONDS = 0.5
# Celery's log lines of a task: "Task <name>[<id>] received", then one that ends it
# ("succeeded in", "raised unexpected", "retry", …).
TASK_LINE = re.compile(r"\] Task \S+\[([0-9a-f-]+)\] (\w+)")


def database_url(db: dict) -> str:
    if db["ENGINE"] in ("core.sqlite", "django.db.backends.sqlite3"):
        return f"sqlite:///{db['NAME']}"
    credentials = quote(db["USER"] or "")
    if db.get("PASSWORD"):
        credentials += ":" + quote(db["PASSWORD"])
    host = f"{db['HOST'] or 'localhost'}:{db['PORT'] or 5432}"
    return f"postgres://{credentials}@{host}/{db['NAME']}"


class Worker:
    """A `celery worker` subprocess in its own process group (so a test can kill it whole)."""

    def __init__(self, log_path: Path, **env: str):
        self.log_path = log_path
        name = f"test-{uuid.uuid4().hex[:8]}@%h"
        full_env = {
            **os.environ,
            "DATABASE_URL": database_url(settings.DATABASES["default"]),
            **env,
        }
        with log_path.open("w") as log:
            self.process = subprocess.Popen(
                worker_command(
                    loglevel="info",
                    concurrency=1,
                    queues=env.get(
                        "QUEUES",
                        f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.CELERY_HEAVY_QUEUE}",
                    ),
                    name=name,
                )
                + (
                    ["-B", "-s", str(log_path.parent / "beat-schedule")]
                    if env.get("WITH_BEAT")
                    else []
                ),
                cwd=settings.BASE_DIR,
                env=full_env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + WORKER_START_SECONDS
        while " ready." not in log_path.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"The Celery worker did not start:\n{log_path.read_text()}")
            time.sleep(0.2)

    def tasks_in_hand(self) -> int:
        """Tasks the worker received and has not ended, from its log (no broadcast needed: the
        file-system broker has none)."""
        received, ended = Counter(), Counter()
        for task_id, word in TASK_LINE.findall(self.log_path.read_text(errors="replace")):
            (received if word == "received" else ended)[task_id] += 1
        return sum((received - ended).values())

    def wait_until_idle(self) -> None:
        """Until every task received has ended and the log has been still for a moment: the
        next test's database flush must not meet this test's work half done (PostgreSQL then
        reports a deadlock between the TRUNCATE and the task's reads)."""
        deadline = time.monotonic() + WORKER_IDLE_SECONDS
        size = -1
        while time.monotonic() < deadline and self.process.poll() is None:
            now = self.log_path.stat().st_size
            if now == size and not self.tasks_in_hand():
                return
            size = now
            time.sleep(WORKER_QUIET_SECONDS)

    def kill(self) -> None:
        """SIGKILL the worker and its pool: no warm shutdown, work in hand is lost."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=20)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()


@pytest.fixture(scope="session")
def start_worker(django_db_setup, tmp_path_factory):
    """`start_worker(**env)` starts a worker; all are stopped at the end of the session."""
    # Tasks left in the queue by an earlier, interrupted run would run against this database.
    app.control.purge()
    workers: list[Worker] = []

    def start(**env: str) -> Worker:
        worker = Worker(tmp_path_factory.mktemp("worker") / "worker.log", **env)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        if worker.process.poll() is None:
            worker.stop()


# Small chunks, so that scoring through this worker exercises the chord of chunks.
SESSION_WORKER_CHUNK_ITEMS = "3"


@pytest.fixture(scope="session")
def _main_worker() -> dict[str, Worker]:
    return {}


@pytest.fixture
def celery_worker_process(start_worker, _main_worker):
    """The shared worker, started on first use and again if a test killed it."""
    worker = _main_worker.get("worker")
    if worker is None or worker.process.poll() is not None:
        worker = _main_worker["worker"] = start_worker(
            SCORING_CHUNK_ITEMS=SESSION_WORKER_CHUNK_ITEMS
        )
    return worker


def uses_db(request) -> tuple[bool, bool]:
    """(uses the database, in transactional mode) for the running test."""
    marker = request.node.get_closest_marker("django_db")
    names = set(request.fixturenames)
    transactional = bool(
        (marker and marker.kwargs.get("transaction")) or names & {"transactional_db", "live_server"}
    )
    return bool(marker or names & {"db", "transactional_db", "live_server"}), transactional


@pytest.fixture(autouse=True)
def _worker_idle_before_flush(request, _main_worker):
    """A transactional test's rows are flushed (TRUNCATE) when it ends; the shared worker may
    still be running work the test sent it, even a test that never asked for the worker (its
    ratings send debounced checks to the broker). So the flush waits until the worker is idle:
    meeting a half-done task, PostgreSQL reports a deadlock and the flush is lost."""
    if not uses_db(request)[1]:
        yield
        return
    request.getfixturevalue("transactional_db")  # set up first, so flushed after this waits
    yield
    worker = _main_worker.get("worker")
    if worker is not None and worker.process.poll() is None:
        worker.wait_until_idle()


def wait_for(condition, timeout=30.0, what="the worker", every=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"Timed out after {timeout:.0f} s waiting for {what}.")
