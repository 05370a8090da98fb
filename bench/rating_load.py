"""Load test of rating: simulated raters against gunicorn + PostgreSQL through the REST API.

The script creates and migrates its own database (`deltableu_bench` by default; dropped at the
end unless --keep), fills it with a synthetic dataset and a campaign, starts gunicorn on a free
port of 127.0.0.1, and lets each rater (one thread each) log in for a token and loop
"next item" → "submit" until nothing is left. It prints ratings per second, p50/p95 latency of
both calls, and checks the database (bench/rating_check.py).

Run: ``python bench/rating_load.py [--raters 50] [--items 300] [--think 0.5]``.
--think is the pause between seeing an item and answering it (seconds); real raters take several
seconds, and quality control fails anyone under 2 s, so 0.5 s is a harsh load; --think 0
saturates the server to measure its ceiling.

``--embedded`` runs on what `make run` gives instead (bench/embedded_kit.py): a SQLite file, the
file-system broker, runserver, and a worker scoring a submission of ``--busy-lines`` lines at the
same time; it also prints how long writes waited for SQLite's lock. A 503 (the database was too
busy; nothing was done) is sent again after its Retry-After, as the API asks, and counted apart.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlencode

import embedded_kit as embedded
from rating_check import NO_VERDICT, count_check

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PASSWORD = "bench-password-not-secret-42"  # noqa: S105 (throwaway database)
WORDS = ["the", "a", "good", "great", "what", "why", "sure", "maybe", "never", "time", "food"]
STARTUP_SECONDS = 30
LOGIN_SPREAD_SECONDS = 5.0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raters", type=int, default=50)
    parser.add_argument("--items", type=int, default=200, help="items, 3 references each")
    parser.add_argument("--k", type=int, default=3, help="ratings wanted per reference")
    parser.add_argument("--think", type=float, default=2.0, help="seconds before answering")
    parser.add_argument("--workers", type=int, default=5, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    parser.add_argument("--db", default="deltableu_bench")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--embedded", action="store_true", help="`make run`'s SQLite and broker")
    parser.add_argument("--busy-lines", type=int, default=100_000, help="the worker's submission")
    parser.add_argument("--busy-refs", type=int, default=4, help="references per busy item")
    return parser.parse_args()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def on_postgres(pg: str, *statements: str) -> None:
    import psycopg2

    conn = psycopg2.connect(f"{pg}/postgres")
    conn.autocommit = True
    with conn.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)
    conn.close()


def recreate_database(pg: str, name: str) -> None:
    on_postgres(pg, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"')


def drop_database(pg: str, name: str) -> None:
    on_postgres(pg, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def environment(args: argparse.Namespace, var_dir: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"{args.pg}/{args.db}",
        # Production settings except transport security: plain HTTP on 127.0.0.1.
        DEBUG="False",
        SECURE_SSL_REDIRECT="False",
        SESSION_COOKIE_SECURE="False",
        CSRF_COOKIE_SECURE="False",
        ALLOWED_HOSTS="127.0.0.1",
        SECRET_KEY="bench-" + os.urandom(16).hex(),
        VAR_DIR=var_dir,
        API_THROTTLE_USER="1000000/minute",  # measuring the server, not the throttle
        DJANGO_SETTINGS_MODULE="deltableu.settings",
    )
    env.setdefault("CELERY_BROKER_URL", "filesystem://")
    return env


def synthetic_jsonl(items: int) -> list[bytes]:
    rng = random.Random(7)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 12)))

    lines = []
    for i in range(items):
        record = {
            "id": f"b{i}",
            "split": "dev",
            "context": [sentence()],
            "message": sentence(),
            "references": [{"text": sentence(), "origin": "original"}]
            + [{"text": sentence(), "origin": "mined"} for _ in range(2)],
        }
        lines.append((json.dumps(record) + "\n").encode())
    return lines


def populate(args: argparse.Namespace) -> tuple[int, list[str]]:
    """The owner, the dataset, the campaign and its raters; returns (campaign id, usernames)."""
    import django

    django.setup()
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    from annotate.accounts.models import Profile, Role
    from annotate.datasets.services.datasets import dataset_create, dataset_import_file
    from annotate.rating.services.campaigns import campaign_create, campaign_join

    owner = User.objects.create(username="bench-owner", password=make_password(PASSWORD))
    Profile.objects.create(user=owner, role=Role.RESEARCHER)
    dataset = dataset_create(owner=owner, name="Bench", slug="bench")
    dataset_import_file(dataset=dataset, lines=synthetic_jsonl(args.items), fmt="jsonl")
    quiet_qc = NO_VERDICT if args.embedded else {}  # only the embedded mode runs a worker
    campaign = campaign_create(
        owner=owner, dataset=dataset, name="Load", ratings_per_unit=args.k, **quiet_qc
    )
    hashed = make_password(PASSWORD)  # one hash for all: hashing 50 times costs 15 s
    names = [f"bench-rater-{i}" for i in range(args.raters)]
    for name in names:
        rater = User.objects.create(username=name, password=hashed)
        Profile.objects.create(user=rater, role=Role.RATER)
        campaign_join(campaign=campaign, rater=rater)
    return campaign.pk, names


def start_gunicorn(args: argparse.Namespace, env: dict[str, str], port: int) -> subprocess.Popen:
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "deltableu.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(args.workers),
        "--threads",
        str(args.threads),
        "--worker-class",
        "gthread",
        "--log-level",
        "warning",
        "--backlog",
        "256",
    ]
    return subprocess.Popen(command, cwd=ROOT, env=env)


def wait_healthy(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline and server.poll() is None:
        try:
            status, _ = request(port, "GET", "/healthz")
            if status == 200:
                return
            time.sleep(0.2)
        except OSError:  # not listening yet
            time.sleep(0.2)
    raise SystemExit("the web server did not answer on /healthz in time")


def request(
    port: int, method: str, path: str, body: dict | None = None, token: str = "", form=False
) -> tuple[int, bytes]:
    """One request; a 503 (the database was busy, nothing was done) is sent again after its
    Retry-After, as the API asks clients to. BUSY counts them."""
    while True:
        status, answer, retry_after = _request_once(port, method, path, body, token, form)
        if status != 503 or retry_after is None:
            return status, answer
        BUSY.append(path)
        time.sleep(retry_after)


BUSY: list[str] = []  # the paths of the 503s sent again


def _request_once(port, method, path, body, token, form) -> tuple[int, bytes, float | None]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Token {token}"} if token else {}
    payload = None
    if body is not None:
        payload = urlencode(body) if form else json.dumps(body)
        headers["Content-Type"] = (
            "application/x-www-form-urlencoded" if form else "application/json"
        )
    try:
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        retry_after = response.getheader("Retry-After")
        return response.status, response.read(), float(retry_after) if retry_after else None
    finally:
        conn.close()


class Rater(threading.Thread):
    def __init__(self, port, campaign_id, username, think, start, max_steps):
        super().__init__(daemon=True)
        self.port, self.campaign_id, self.username = port, campaign_id, username
        self.think, self.start_line, self.max_steps = think, start, max_steps
        self.next_ms: list[float] = []
        self.submit_ms: list[float] = []
        self.accepted: list[int] = []
        self.errors: list[str] = []

    def run(self) -> None:
        rng = random.Random(self.username)
        # A crowd logs in over a few seconds, not in one instant: runserver (the embedded mode)
        # queues 10 connections, and 50 at once were reset before Django saw them.
        time.sleep(rng.uniform(0, LOGIN_SPREAD_SECONDS))
        try:
            status, body = request(
                self.port,
                "POST",
                "/api/v1/auth/token/",
                {"username": self.username, "password": PASSWORD},
                form=True,
            )
            token = json.loads(body)["token"]
        except Exception as exc:  # reported in the summary
            self.errors.append(f"login: {exc}")
            self.start_line.wait()
            return
        self.start_line.wait()
        for _ in range(self.max_steps):
            began = time.perf_counter()
            status, body = request(
                self.port, "POST", f"/api/v1/campaigns/{self.campaign_id}/next/", token=token
            )
            self.next_ms.append(1000 * (time.perf_counter() - began))
            if status != 200:
                self.errors.append(f"next {status}: {body[:200]!r}")
                return
            answer = json.loads(body)
            if answer.get("nothing_left"):
                return
            rating_id = answer["rating_id"]
            if self.think:
                time.sleep(rng.uniform(0.5, 1.5) * self.think)
            began = time.perf_counter()
            status, body = request(
                self.port,
                "POST",
                f"/api/v1/ratings/{rating_id}/",
                {"score": rng.randint(1, 5)},
                token=token,
            )
            self.submit_ms.append(1000 * (time.perf_counter() - began))
            if status == 200:
                self.accepted.append(rating_id)
            else:
                self.errors.append(f"submit {status}: {body[:200]!r}")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def report(raters: list[Rater], seconds: float, campaign_id: int, k: int) -> int:
    from annotate.rating.models import Rating, RatingKind, Slot

    next_ms = [v for r in raters for v in r.next_ms]
    submit_ms = [v for r in raters for v in r.submit_ms]
    accepted = {pk for r in raters for pk in r.accepted}
    errors = [e for r in raters for e in r.errors]
    slots = Slot.objects.filter(campaign_id=campaign_id)
    controls = Rating.objects.filter(campaign_id=campaign_id).exclude(kind=RatingKind.NORMAL)
    print(
        f"raters {len(raters)}, references {slots.count()}, k {k} "
        f"({slots.filter(wanted__gt=k).count()} topped up for disagreement)"
    )
    print(
        f"ratings {len(accepted)} ({controls.count()} controls) in {seconds:.1f} s: "
        f"{len(accepted) / seconds:.1f} ratings/s"
    )
    for name, values in (("next", next_ms), ("submit", submit_ms)):
        print(
            f"{name:>6}: n {len(values)}, p50 {percentile(values, 50):.1f} ms, "
            f"p95 {percentile(values, 95):.1f} ms, p99 {percentile(values, 99):.1f} ms, "
            f"max {max(values, default=float('nan')):.1f} ms"
        )
    problems = count_check(campaign_id, accepted, len(raters))
    for line in errors[:10] + problems[:20]:
        print("  !", line)
    ok = not errors and not problems
    verdict = (
        "OK — exactly the wanted ratings per reference, no duplicates, nothing lost, no lease left"
        if ok
        else f"FAILED ({len(errors)} errors, {len(problems)} problems)"
    )
    print("count check:", verdict)
    return 0 if ok else 1


def main() -> int:
    args = parse_args()
    var_dir = tempfile.mkdtemp(prefix="deltableu-bench-")
    if args.embedded:
        env = embedded.embedded_environment(var_dir)
        for name in embedded.NOT_EMBEDDED:
            os.environ.pop(name, None)
    else:
        env = environment(args, var_dir)
        recreate_database(args.pg, args.db)
    os.environ.update(env)
    processes: list[subprocess.Popen] = []
    try:
        migrate = [sys.executable, "manage.py", "migrate", "-v", "0"]
        subprocess.run(migrate, cwd=ROOT, env=env, check=True)
        campaign_id, names = populate(args)
        busy = None
        if args.embedded:
            processes.append(embedded.start_worker(env, Path(var_dir) / "worker.log"))
            busy = embedded.busy_board(args.busy_lines, args.busy_refs, processes[-1], PASSWORD)
        from django.db import connection

        connection.close()  # the checker reconnects after the run
        port = free_port()
        if args.embedded:
            processes.append(embedded.start_runserver(env, port, Path(var_dir) / "server.log"))
        else:
            processes.append(start_gunicorn(args, env, port))
        wait_healthy(port, processes[-1])
        start = threading.Barrier(len(names) + 1)
        # Every rater can do at most every reference once, plus controls: a hard bound.
        max_steps = 2 * args.items * 3
        raters = [Rater(port, campaign_id, n, args.think, start, max_steps) for n in names]
        for rater in raters:
            rater.start()
        probe = embedded.LockProbe(embedded.database_file(var_dir)) if args.embedded else None
        start.wait()
        began, began_at = time.perf_counter(), datetime.now(UTC)
        if probe is not None:
            probe.start()
        if busy is not None:  # as a participant's upload arrives, while the raters work
            from tests.runs_kit import upload

            busy_id = upload(*busy, method="busy").pk
            connection.close()
        for rater in raters:
            rater.join()
        seconds, ended_at = time.perf_counter() - began, datetime.now(UTC)
        code = report(raters, seconds, campaign_id, args.k)
        if probe is not None:
            probe.running = False
            print(embedded.scoring_summary(busy_id, began_at, ended_at))
            print(probe.summary(percentile))
        print(f"503 busy answers, each sent again after its Retry-After: {len(BUSY)}")
        return code
    finally:
        for process in reversed(processes):
            embedded.stop(process)
        from django.db import connections

        connections.close_all()
        if not args.embedded and not args.keep:
            drop_database(args.pg, args.db)


if __name__ == "__main__":
    raise SystemExit(main())
