"""Every script in bench/ runs to its end on a tiny input.

The benchmarks are where the README's speed and memory numbers come from, and nothing else runs
them: two had broken unnoticed (bench/weights.py still built ratings on the old reference
column; bench/nist_index.py sent its "old" measurement down the memory-mapped path). Here each
runs in a process of its own with sizes small enough to take seconds; what they measure is
not checked (timings belong to the scripts, not to tests).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Each starts a process (a few seconds apiece): `make test` runs them, `make test-fast` does not.
# The suite's 300 s limit is for a test that hangs; a script may take up to its own 600 s on a
# machine whose cores are shared (demo_load.py took over 300 s at a load of 12 on 2 cores).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(660)]

TINY = {
    "adaptive_rating.py": ["--items", "20", "--panels", "2", "--systems", "4"],
    "amber.py": ["--pairs", "300"],
    "companion.py": ["--items", "100"],
    "correlation.py": ["--shape", "dstc7", "--items", "100", "--processes", "1", "--per-metric"],
    "demo_load.py": ["--runs", "1"],
    "hostile.py": ["--only", "NaN / NUL JSON body"],
    "metaeval.py": ["--systems", "4", "--items", "200", "--draws", "50", "--kendall-draws", "5"],
    "metrics.py": ["--items", "100"],
    "mining.py": ["--sizes", "500", "--queries", "10"],
    "nist_index.py": ["--items", "100", "--old-max", "100", "--range-size", "50"],
    "rater_bootstrap.py": ["--items", "100", "--samples", "20"],
    "rater_coverage.py": ["--quick", "--cells", "1+10%", "2"],
    "release_import.py": ["--items", "50"],
    "scoring_e2e.py": ["--sizes", "50", "--refs", "2"],
    "weights.py": ["--items", "20"],
    # One kill: about a minute, the heartbeats' grace and a sweep.
    "worker_kill.py": ["--trials", "1", "--items", "200", "--chunk-items", "10"],
}
# Load-tests gunicorn against a PostgreSQL database of its own making.
NEEDS_POSTGRESQL = {"rating_load.py": ["--raters", "3", "--items", "5", "--think", "0"]}


# Modules the scripts import, not scripts of their own (each is run through its script).
HELPERS = {
    "adaptive_world.py",
    "board_kit.py",
    "embedded_kit.py",
    "rater_world.py",
    "rating_check.py",
    "svg.py",
}


def test_every_bench_script_is_listed():
    scripts = {path.name for path in (ROOT / "bench").glob("*.py")}
    assert scripts == set(TINY) | set(NEEDS_POSTGRESQL) | HELPERS


# The suite's own database, broker and cache (CI's PostgreSQL and Redis) are not the scripts':
# each makes a throwaway SQLite database and file-system broker of its own without them.
NOT_PASSED_ON = (
    "DEBUG",
    "DJANGO_SETTINGS_MODULE",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CACHE_URL",
)


def run_bench(name: str, args: list[str], **env: str) -> None:
    clean = {k: v for k, v in os.environ.items() if k not in NOT_PASSED_ON}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / name), *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip(), "the script printed nothing"


@pytest.mark.parametrize("name", sorted(TINY))
def test_the_bench_script_runs_on_a_tiny_input(name, tmp_path):
    # The scripts that use Django make their own throwaway SQLite database under VAR_DIR.
    run_bench(name, TINY[name], VAR_DIR=str(tmp_path))


def test_the_embedded_rating_load_runs_on_a_tiny_input():
    # `make run`'s settings: a SQLite file and the file-system broker of its own, a worker
    # scoring a small submission beside the raters.
    tiny = ["--raters", "3", "--items", "5", "--think", "0", "--busy-lines", "200"]
    run_bench("rating_load.py", ["--embedded", *tiny, "--busy-refs", "2"])


# The suite's PostgreSQL server where it runs on one (CI), else the usual local one.
LOCAL_POSTGRESQL = "postgres://postgres@127.0.0.1:5432"


def postgresql_server() -> str | None:
    """The URL (without a database) of a PostgreSQL server that answers, or None."""
    import psycopg2

    url = os.environ.get("DATABASE_URL", "")
    server = url.rsplit("/", 1)[0] if url.startswith("postgres") else LOCAL_POSTGRESQL
    try:
        psycopg2.connect(f"{server}/postgres", connect_timeout=3).close()
    except psycopg2.OperationalError:
        return None
    return server


@pytest.mark.parametrize("name", sorted(NEEDS_POSTGRESQL))
def test_the_postgresql_bench_script_runs_on_a_tiny_input(name):
    server = postgresql_server()
    if server is None:
        # A machine with nothing but Python has no server to load-test against; CI always has
        # one, so there a missing server fails instead of passing unseen.
        if os.environ.get("CI") == "true":
            pytest.fail("CI runs this against its PostgreSQL, which did not answer")
        pytest.skip("no PostgreSQL server answers on this machine")
    run_bench(name, [*NEEDS_POSTGRESQL[name], "--pg", server, "--db", "deltableu_bench_smoke"])
