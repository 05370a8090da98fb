"""rating_load.py's embedded mode: what `make run` gives a new team, under a crowd.

The settings of `make run` (DEBUG, a SQLite file and the file-system broker under a VAR_DIR of
the bench's own), Django's runserver as `make run` starts it, and one Celery worker on both
queues with its embedded beat, as scripts/run.sh starts it. Beside the raters, that worker
scores a large submission (a board of its own, its indexes built first), so that the raters'
writes meet the worker's at SQLite's one write lock. A probe takes that lock every quarter of a
second (`BEGIN IMMEDIATE`, then at once `COMMIT`) and records how long it waited: the longest
wait is about the longest time anyone held the lock.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE_SECONDS = 0.25
# Variables of the environment `make run` does not set: the bench's shell may (a developer's
# PostgreSQL, Redis), and the embedded mode must not inherit them.
NOT_EMBEDDED = ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL")


def embedded_environment(var_dir: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in NOT_EMBEDDED}
    env.update(
        DEBUG="True",
        VAR_DIR=var_dir,
        CELERY_BROKER_URL="filesystem://",
        API_THROTTLE_USER="1000000/minute",  # measuring the server, not the throttle
        DJANGO_SETTINGS_MODULE="deltableu.settings",
    )
    return env


def database_file(var_dir: str) -> str:
    return str(Path(var_dir) / "db.sqlite3")


def start_runserver(env: dict[str, str], port: int, log: Path) -> subprocess.Popen:
    """Django's development server, as `make run` starts it (threaded, one process)."""
    command = [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT
    )


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen:
    """One worker on both queues with its beat, as scripts/run.sh starts it."""
    from deltableu.celery import worker_command

    queues = "celery,celery-heavy"
    command = [*worker_command(loglevel="warning", concurrency=2, queues=queues), "-B"]
    command += ["--schedule", str(Path(env["VAR_DIR"]) / "beat-schedule")]
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT
    )


def stop(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_until(condition, timeout: float, what: str, watched: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if watched.poll() is not None:
            raise SystemExit(f"the worker died waiting for {what}")
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.2)


def busy_board(lines: int, refs: int, worker: subprocess.Popen, password: str):
    """The board whose large submission keeps the worker busy, its indexes built by `worker`:
    (board, participant, output lines)."""
    from board_kit import published_board
    from django_celery_results.models import TaskResult

    board, user, hyps = published_board(lines, refs, "busy", None, password=password)
    built = TaskResult.objects.filter(
        task_name="scoring.leaderboards.tasks.prepare_leaderboard",
        task_args__contains=f"({board.pk},)",
        status="SUCCESS",
    )
    wait_until(built.exists, 1800, "the busy board's indexes", worker)
    return board, user, hyps


class LockProbe(threading.Thread):
    """Takes SQLite's write lock every PROBE_SECONDS and records each wait (ms)."""

    def __init__(self, path: str) -> None:
        super().__init__(daemon=True)
        self.path, self.running, self.waits_ms = path, True, []

    def run(self) -> None:
        connection = sqlite3.connect(self.path, timeout=600, isolation_level=None)
        while self.running:
            began = time.perf_counter()
            connection.execute("BEGIN IMMEDIATE")
            self.waits_ms.append(1000 * (time.perf_counter() - began))
            connection.execute("COMMIT")
            time.sleep(PROBE_SECONDS)
        connection.close()

    def summary(self, percentile) -> str:
        waits = self.waits_ms
        return (
            f"write lock: {len(waits)} probes waited p50 {percentile(waits, 50):.1f} ms, "
            f"p95 {percentile(waits, 95):.1f} ms, max {max(waits, default=0):.1f} ms"
        )


def scoring_summary(submission_id: int, raters_began, raters_ended) -> str:
    """How the busy submission's scoring went and when, against the raters' run (datetimes)."""
    from scoring.leaderboards.models import Submission

    submission = Submission.objects.select_related("run").get(pk=submission_id)
    run = submission.run
    line = f"busy worker: a submission of {submission.n_lines:,} lines, {submission.status}"
    if run is not None and run.started_at:
        start = (run.started_at - raters_began).total_seconds()
        line += f"; scoring began {start:+.1f} s after the raters began"
        if run.finished_at:
            end = (run.finished_at - raters_ended).total_seconds()
            line += f", ended {end:+.1f} s after they ended"
    return line + f" (the raters' run: {(raters_ended - raters_began).total_seconds():.1f} s)"
