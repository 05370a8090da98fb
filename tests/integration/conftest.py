"""A real Celery worker process, started once for the integration tests.

It runs the project's own code against the test database (SQLite file or PostgreSQL) and the
configured broker (file system, or Redis in CI), exactly as `make run` and production do.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from urllib.parse import quote

import pytest
from django.conf import settings

from deltableu.celery import app

WORKER_START_SECONDS = 60


def database_url(db: dict) -> str:
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"
    credentials = quote(db["USER"] or "")
    if db.get("PASSWORD"):
        credentials += ":" + quote(db["PASSWORD"])
    host = f"{db['HOST'] or 'localhost'}:{db['PORT'] or 5432}"
    return f"postgres://{credentials}@{host}/{db['NAME']}"


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, tmp_path_factory):
    # Tasks left in the queue by an earlier, interrupted run would run against this database.
    app.control.purge()
    log_path = tmp_path_factory.mktemp("worker") / "worker.log"
    name = f"test-{uuid.uuid4().hex[:8]}@%h"
    env = {**os.environ, "DATABASE_URL": database_url(settings.DATABASES["default"])}
    with log_path.open("w") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "deltableu", "worker", "-l", "info",
             "--concurrency", "1", "-n", name, "--without-gossip", "--without-mingle"],
            cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + WORKER_START_SECONDS
    while " ready." not in log_path.read_text():
        if worker.poll() is not None or time.monotonic() > deadline:
            worker.kill()
            pytest.fail(f"The Celery worker did not start:\n{log_path.read_text()}")
        time.sleep(0.2)
    yield worker
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()


def wait_for(condition, timeout=30.0, what="the worker"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"Timed out after {timeout:.0f} s waiting for {what}.")
