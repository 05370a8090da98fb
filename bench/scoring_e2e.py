"""Time from upload to leaderboard, through a real Celery worker.

    python bench/scoring_e2e.py [--sizes 2000 100000] [--refs 16] [--companions all]
    python bench/scoring_e2e.py --sizes 1000000 --refs 4 --companions default --skip-metric

For each size: a published release of N items × R weighted references (~15 tokens each, each
weight the mean of three ratings, which the release keeps), a leaderboard (ΔBLEU with BLEU and
sBLEU beside it, or with every metric of the registry with ``--companions all``; its reference
indexes are built when it opens, as in production), then one submission of N lines. Printed:
seconds from the upload call to the submission being finished with its scores stored, and then
to the run of its bootstrap replicates (the interval with the raters' uncertainty, the rank
grid) being done; the worker's peak memory over both, sampled every 50 ms: resident (RSS) of its
whole process tree, where the pool's processes each count the pages of the shared memory-mapped
indexes they touch, and proportional (PSS), where a shared page counts once; the largest single
process's resident peak and its own (anonymous: everything but mapped files) peak; and the share
of that time spent in the metric itself (the same statistics and bootstrap computed in this
process against the prebuilt indexes; ``--skip-metric`` leaves that reference run out, e.g. for
a million lines).

Runs on PostgreSQL and Redis when BENCH_DATABASE_URL / BENCH_BROKER_URL are set (the database is
dropped and created anew at the start), else on a temporary SQLite file and the file-system
broker.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
WORK = Path(tempfile.mkdtemp(prefix="bench-scoring-"))
os.environ.setdefault("DEBUG", "True")
os.environ["VAR_DIR"] = str(WORK)
os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{WORK}/bench.db")
os.environ["CELERY_BROKER_URL"] = os.environ.get("BENCH_BROKER_URL", "filesystem://")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "deltableu.settings")


def fresh_database(url: str) -> None:
    """PostgreSQL: the bench's database made anew (an earlier run's rows would collide)."""
    import dj_database_url
    import psycopg2

    config = dj_database_url.parse(url)
    admin = psycopg2.connect(
        dbname="postgres",
        user=config["USER"],
        password=config["PASSWORD"],
        host=config["HOST"],
        port=config["PORT"] or 5432,
    )
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{config["NAME"]}"')
        cursor.execute(f'CREATE DATABASE "{config["NAME"]}"')
    admin.close()


if os.environ["DATABASE_URL"].startswith("postgres"):
    fresh_database(os.environ["DATABASE_URL"])

import django  # noqa: E402

django.setup()

from board_kit import published_board  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from deltableu.celery import worker_command  # noqa: E402

BENCH_PASSWORD = "bench-" + os.urandom(8).hex()


def _memory_kb(proc: Path) -> dict[str, int]:
    """Rss, Pss (shared pages divided among the processes that map them) and Anonymous (the
    process's own memory, without the memory-mapped index files' pages) of one process."""
    wanted = {"Rss", "Pss", "Anonymous"}
    values = {}
    for line in (proc / "smaps_rollup").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in wanted:
            values[key] = int(rest.split()[0])
    return values


def tree_memory_kb(pid: int) -> dict[str, int]:
    """Of a process and its children (kB): resident and proportional memory in all, and the
    largest process's resident and own (anonymous) memory."""
    out = {"rss": 0, "pss": 0, "rss_one": 0, "own_one": 0}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().split()
            if int(entry.name) == pid or int(stat[3]) == pid:
                mem = _memory_kb(entry)
                out["rss"] += mem["Rss"]
                out["pss"] += mem["Pss"]
                out["rss_one"] = max(out["rss_one"], mem["Rss"])
                out["own_one"] = max(out["own_one"], mem["Anonymous"])
        except (OSError, IndexError, ValueError, KeyError):
            continue
    return out


class PeakSampler(threading.Thread):
    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.running = pid, True
        self.peak = {"rss": 0, "pss": 0, "rss_one": 0, "own_one": 0}

    def run(self) -> None:
        while self.running:
            for key, value in tree_memory_kb(self.pid).items():
                self.peak[key] = max(self.peak[key], value)
            time.sleep(0.05)


WORKER: list[subprocess.Popen] = []  # the bench's worker, watched while waiting


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if WORKER and WORKER[0].poll() is not None:
            raise SystemExit(f"the worker died waiting for {what}: see {WORK / 'worker.log'}")
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.02)


def metric_seconds(board, hyps: list[str]) -> float:
    from scoring.leaderboards.services.references import reference_index
    from scoring.metrics import bootstrap_ci

    loaded = [reference_index(board, name) for name in board.metrics]  # not timed: the worker
    started = time.perf_counter()  # keeps its indexes in memory between submissions
    for references in loaded:
        metric, prepared = references.metric, references.prepared
        stats = metric.stats(hyps, prepared)
        metric.result(stats.sum(axis=0))
        bootstrap_ci(metric, stats, n_samples=1000)
    return time.perf_counter() - started


def run_size(n_items: int, n_refs: int, companions: list[str] | None, skip_metric: bool) -> dict:
    from django_celery_results.models import TaskResult

    from core.runs.models import Run
    from scoring.leaderboards.models import Submission
    from scoring.leaderboards.services.references import _INDEX_CACHE
    from tests.runs_kit import upload

    tag = f"bench-{n_items}-{n_refs}"
    t0 = time.perf_counter()
    # The indexes are built by a worker of their own, watched for its peak: a board's indexes
    # are built once when it opens, and the pool recycles the process that built them (its
    # memory limit), so scoring is measured on a worker started afterwards.
    with running_worker("build") as builder:
        build_sampler = PeakSampler(builder.pid)
        build_sampler.start()
        board, user, hyps = published_board(
            n_items, n_refs, tag, companions, password=BENCH_PASSWORD
        )
        setup = time.perf_counter() - t0
        done = TaskResult.objects.filter(
            task_name="scoring.leaderboards.tasks.prepare_leaderboard",
            task_args__contains=f"({board.pk},)",
            status="SUCCESS",
        )
        wait_until(done.exists, 3600, "the indexes")
        build_sampler.running = False
    prepared = time.perf_counter() - t0 - setup
    with running_worker("score") as worker:
        time.sleep(5)  # the pool's processes up and idle
        sampler = PeakSampler(worker.pid)
        sampler.start()
        start = time.perf_counter()
        submission = upload(board, user, hyps, method="bench")
        ended = Submission.objects.filter(pk=submission.pk, status__in=["finished", "failed"])
        wait_until(ended.exists, 3600, "scoring")
        elapsed = time.perf_counter() - start
        # Then the run of its replicates (the interval with raters, the board's rank grid).
        replicates = Run.objects.filter(
            kind="replicates", scope=f"submission:{submission.pk}", state__in=Run.ENDED
        )
        wait_until(replicates.exists, 3600, "the replicates")
        after = time.perf_counter() - start - elapsed
        sampler.running = False
        if replicates.get().state != "succeeded":
            raise SystemExit(f"replicates failed: {replicates.get().reason}")
    status = Submission.objects.get(pk=submission.pk)
    if status.status != "finished":
        raise SystemExit(f"submission failed: {status.error}")
    _INDEX_CACHE.clear()
    metric_time = None if skip_metric else metric_seconds(board, hyps)
    _INDEX_CACHE.clear()
    return {
        "lines": n_items,
        "setup": setup,
        "indexes": prepared,
        "e2e": elapsed,
        "replicates": after,
        **{f"{key}_mb": value / 1024 for key, value in sampler.peak.items()},
        "build_own_mb": build_sampler.peak["own_one"] / 1024,
        "metric": metric_time,
        "metrics": len(board.metrics),
    }


@contextmanager
def running_worker(name: str) -> Iterator[subprocess.Popen]:
    """A Celery worker (two pool processes, both queues) for the length of the block."""
    log = (WORK / f"worker-{name}.log").open("w")
    queues = f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.CELERY_HEAVY_QUEUE}"
    worker = subprocess.Popen(
        worker_command(loglevel="warning", concurrency=2, queues=queues),
        cwd=ROOT,
        env={**os.environ},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    WORKER[:] = [worker]
    try:
        yield worker
    finally:
        worker.terminate()
        worker.wait(timeout=60)
        WORKER.clear()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 100_000])
    parser.add_argument("--refs", type=int, default=16)
    parser.add_argument(
        "--companions",
        default="default",
        help="default (BLEU, sBLEU), all (every metric of the registry) or a comma list",
    )
    parser.add_argument("--skip-metric", action="store_true", help="no in-process reference run")
    args = parser.parse_args()
    from scoring.metrics import entries

    companions = {
        "default": None,
        "all": [name for name in entries() if name != "dbleu"],
    }.get(args.companions, args.companions.split(","))
    call_command("migrate", verbosity=0)
    broker = os.environ["CELERY_BROKER_URL"].split(":")[0]
    print(f"database: {connection.vendor}; broker: {broker}")
    print(
        f"{'lines':>9} {'refs':>5} {'metrics':>7} {'release s':>10} {'indexes s':>10}"
        f" {'upload→board s':>15} {'+replicates s':>14} {'worker RSS MB':>14} {'worker PSS MB':>14}"
        f" {'1 process RSS MB':>17} {'1 process own MB':>17} {'index build own MB':>19}"
        f" {'metric share':>13}"
    )
    for size in args.sizes:
        row = run_size(size, args.refs, companions, args.skip_metric)
        share = "-" if row["metric"] is None else f"{min(1.0, row['metric'] / row['e2e']):.0%}"
        print(
            f"{row['lines']:>9,} {args.refs:>5} {row['metrics']:>7} {row['setup']:>10.1f}"
            f" {row['indexes']:>10.1f} {row['e2e']:>15.2f} {row['replicates']:>14.2f}"
            f" {row['rss_mb']:>14.0f}"
            f" {row['pss_mb']:>14.0f} {row['rss_one_mb']:>17.0f} {row['own_one_mb']:>17.0f}"
            f" {row['build_own_mb']:>19.0f} {share:>13}",
            flush=True,
        )


if __name__ == "__main__":
    main()
