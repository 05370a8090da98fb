"""Recovery after a worker is killed mid-chord, trial after trial, with the default settings.

    BENCH_DATABASE_URL=postgres://… BENCH_BROKER_URL=redis://… python bench/worker_kill.py
    python bench/worker_kill.py --trials 10 --items 400 --chunk-items 20 --concurrency 2

One beat process (the periodic sweep every RUNS_SWEEP_SECONDS, 10 s) runs throughout. Each
trial submits a submission scored as a chord of parts (`--chunk-items` per part), waits until
its first parts are done and a random moment more (0-2 s), kills the only worker with SIGKILL
(its process group: running parts and prefetched ones are lost with it) and starts a new one
at once. Printed per trial: what the killed worker held a moment before (Celery's control API),
seconds from the kill to the run's next attempt (when one was needed) and to the submission being
finished, the attempt that finished it, why the first one was retried, and whether it was scored
exactly once. Every
other setting is the default: the chord's lease is 600 s, so a recovery within two minutes was
found by heartbeats (the parts' own, or the workers'), not by the lease ending.

Set-up (database, broker) is bench/scoring_e2e.py's, the board bench/board_kit.py's:
PostgreSQL and Redis when BENCH_DATABASE_URL / BENCH_BROKER_URL are set (the database dropped
and created anew), else a temporary SQLite file and the file-system broker.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# Queues of the bench's own: a test suite's workers on the same broker never take its work.
os.environ.setdefault("CELERY_TASK_DEFAULT_QUEUE", "worker-kill-bench")

import scoring_e2e
from board_kit import published_board
from django.conf import settings
from django.core.management import call_command

from deltableu.celery import worker_command

ROOT, WORK = scoring_e2e.ROOT, scoring_e2e.WORK
# A recovery must come within this; the lease (600 s) would take five times as long.
RECOVERY_LIMIT_SECONDS = 120
# A trial that outlasts this is reported as lost, and the bench goes on to the next.
TRIAL_TIMEOUT_SECONDS = 900


def start(argv: list[str], log_name: str, chunk_items: int) -> subprocess.Popen:
    """A Celery process in its own process group, logging to WORK."""
    env = {**os.environ, "SCORING_CHUNK_ITEMS": str(chunk_items)}
    with (WORK / log_name).open("w") as log:
        return subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )


def start_worker(number: int, concurrency: int, chunk_items: int) -> subprocess.Popen:
    queues = f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.CELERY_HEAVY_QUEUE}"
    argv = worker_command(
        loglevel="info", concurrency=concurrency, queues=queues, name=f"kill-{number}@%h"
    )
    worker = start(argv, f"worker-{number}.log", chunk_items)
    log = WORK / f"worker-{number}.log"
    scoring_e2e.wait_until(lambda: " ready." in log.read_text(), 60, f"worker {number}")
    return worker


def kill(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


def parts_held(hostname: str) -> tuple[int, int]:
    """The chord parts the worker runs and those it received and has not started, as it says a
    moment before the kill (Celery's control API; the file-system broker cannot ask: -1)."""
    from deltableu.celery import app
    from scoring.leaderboards.services.scoring import SCORE_CHUNK_TASK

    if not os.environ["CELERY_BROKER_URL"].startswith("redis"):
        return -1, -1
    inspector = app.control.inspect(destination=[hostname], timeout=1)
    counts = []
    for answer in (inspector.active() or {}, inspector.reserved() or {}):
        tasks = answer.get(hostname, [])
        counts.append(sum(task["name"] == SCORE_CHUNK_TASK for task in tasks))
    return counts[0], counts[1]


def trial(number: int, board, user, hyps, victim: subprocess.Popen, args) -> tuple[dict, object]:
    """Kill `victim` amid a chord; returns the trial's row and the worker that replaced it."""
    from core.runs.models import Run
    from scoring.leaderboards.models import Submission
    from tests.runs_kit import upload

    submission = upload(board, user, hyps, method=f"trial {number}")
    run = Run.objects.filter(pk=submission.run_id)
    scoring_e2e.wait_until(lambda: run.filter(done__gt=0).exists(), 300, "the first parts")
    time.sleep(random.uniform(0, 2))
    running, prefetched = parts_held(f"kill-{number - 1}@{socket.gethostname()}")
    before = run.values_list("state", "done", "total", "parts").get()
    kill(victim)
    killed_at = time.monotonic()
    replacement = start_worker(number, args.concurrency, args.chunk_items)
    finished = Submission.objects.filter(pk=submission.pk, status__in=["finished", "failed"])
    deadline = killed_at + TRIAL_TIMEOUT_SECONDS
    retried = None
    while not finished.exists() and time.monotonic() < deadline:
        if retried is None and run.filter(attempt__gt=1).exists():
            retried = time.monotonic() - killed_at
        time.sleep(0.2)
    seconds = time.monotonic() - killed_at
    ended = Submission.objects.select_related("run").get(pk=submission.pk)
    row = {
        "trial": number,
        "at_kill": f"{before[0]} {before[1]}/{before[2]} of {before[3]} parts",
        "held": f"{running} running, {prefetched} prefetched",
        "seconds": seconds if finished.exists() else None,
        "retried": retried,
        "status": ended.status,
        "attempt": ended.run.attempt,
        "why": ended.run.reason.split(":", 1)[-1].strip() or "(not retried)",
        "scores": ended.scores.count(),
        "charged": ended.charged,
    }
    return row, replacement


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--chunk-items", type=int, default=20, help="items per chord part")
    parser.add_argument("--concurrency", type=int, default=2, help="pool processes per worker")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    random.seed(args.seed)
    call_command("migrate", verbosity=0)
    beat_argv = [sys.executable, "-m", "celery", "-A", "deltableu", "beat", "-l", "info"]
    beat = start([*beat_argv, "-s", str(WORK / "beat-schedule")], "beat.log", args.chunk_items)
    worker = start_worker(0, args.concurrency, args.chunk_items)
    rows = []
    # Everything after the processes start stops them on the way out, even a failed set-up.
    try:
        board, user, hyps = published_board(
            args.items, 2, "kill", None, password=scoring_e2e.BENCH_PASSWORD
        )
        # Every trial is a submission of the same team: no daily quota may stop the bench.
        board.daily_quota = board.total_quota = args.trials + 1
        board.save(update_fields=["daily_quota", "total_quota"])
        broker = os.environ["CELERY_BROKER_URL"].split(":")[0]
        print(
            f"database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}; broker: "
            f"{broker}; {args.items} items in parts of {args.chunk_items}, 3 metrics; "
            f"{args.concurrency} pool processes; lease {settings.SCORING_CHORD_LEASE_SECONDS} s, "
            f"sweep every {settings.RUNS_SWEEP_SECONDS} s, "
            f"heartbeat {settings.RUNS_HEARTBEAT_SECONDS} s"
        )
        print(
            f"{'trial':>5} {'at the kill':>28} {'worker held':>26} {'retried s':>10}"
            f" {'finished s':>11} {'attempt':>7} {'once':>5}  why"
        )
        for number in range(1, args.trials + 1):
            row, worker = trial(number, board, user, hyps, worker, args)
            rows.append(row)
            once = row["status"] == "finished" and row["scores"] == 3 and row["charged"]
            seconds = "lost" if row["seconds"] is None else f"{row['seconds']:.1f}"
            retried = "-" if row["retried"] is None else f"{row['retried']:.1f}"
            print(
                f"{row['trial']:>5} {row['at_kill']:>28} {row['held']:>26} {retried:>10}"
                f" {seconds:>11}"
                f" {row['attempt']:>7}"
                f" {'yes' if once else 'NO':>5}  {row['why']}",
                flush=True,
            )
    finally:
        for process in (worker, beat):
            process.terminate()
            process.wait(timeout=60)
    limit = RECOVERY_LIMIT_SECONDS
    for key, what in (("retried", "retried"), ("seconds", "finished")):
        times = [row[key] for row in rows if row[key] is not None]
        within = sum(seconds < limit for seconds in times)
        spread = ""
        if times:
            spread = f"; median {statistics.median(times):.1f} s, max {max(times):.1f} s"
        # Not every kill needs a new attempt: a worker killed between parts lost nothing.
        of = f"the {len(times)} trials that needed one" if key == "retried" else len(rows)
        print(f"{what} within {limit} s of the kill: {within} of {of}{spread}")


if __name__ == "__main__":
    main()
