"""Hostile inputs through the real code paths: how fast each is refused, in how much memory.

Each row builds its input in memory first (bombs from tests/bombs.py: a megabyte of deflated
zeros repeated, so a 5 GiB bomb costs 5 MB and a fraction of a second), then runs the service,
management command or API call (Django's test client) that would receive it, twice:
  - timed, with the process's peak RSS reset just before (`/proc/self/clear_refs`): "RSS peak"
    is VmHWM after minus VmRSS before — everything the refusal added, C buffers included;
  - under tracemalloc: "Py peak" is the peak of Python allocations during the refusal.
Everything runs in one process on a throwaway SQLite database and media folder.

Rows are a list: add yours to ROWS (a row with `run=None` is printed as a placeholder).

Run: ``python bench/hostile.py [--only NAME ...]``.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import io
import logging
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MIB = 1024 * 1024


@dataclass
class Row:
    name: str
    source: str  # what the input is
    path: str  # the code path that receives it
    run: Callable[[], str] | None  # returns the outcome (status, limit); None: placeholder


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def measure(run: Callable[[], str]) -> tuple[str, float, float, float]:
    """(outcome, seconds, RSS peak growth MiB, Python heap peak MiB)."""
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    before = _status_kib("VmRSS")
    started = time.perf_counter()
    outcome = run()
    seconds = time.perf_counter() - started
    rss_peak = (_status_kib("VmHWM") - before) / 1024
    gc.collect()
    tracemalloc.start()
    run()
    py_peak = tracemalloc.get_traced_memory()[1] / MIB
    tracemalloc.stop()
    return outcome, seconds, rss_peak, py_peak


def _scratch() -> str:
    folder = tempfile.mkdtemp(prefix="hostile-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def setup_django() -> None:
    folder = _scratch()
    os.environ.update(
        DJANGO_SETTINGS_MODULE="deltableu.settings",
        DEBUG="True",
        VAR_DIR=folder,
        MEDIA_ROOT=f"{folder}/media",
        DATABASE_URL=f"sqlite:///{folder}/db.sqlite3",
    )
    import django
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    django.setup()
    logging.getLogger("django.request").setLevel(logging.ERROR)  # each 413 would log a warning
    setup_test_environment()  # the test client's host, in-memory e-mail
    call_command("migrate", verbosity=0)


def build_rows() -> list[Row]:
    from django.core.exceptions import ValidationError
    from django.core.files.base import ContentFile
    from django.core.management import call_command
    from django.core.management.base import CommandError
    from django.test import override_settings
    from rest_framework.test import APIClient

    from annotate.accounts.models import Role
    from annotate.accounts.services import user_create
    from annotate.mining.services.corpora import CorpusInvalid, corpus_build_index, corpus_create
    from annotate.releases.services.importing import release_import_archive
    from core.lines import file_lines
    from scoring.leaderboards.submission_files import UploadRejected, parse_submission
    from tests.bombs import GIB, deflate_repeated, gzip_bomb, zip_bomb, zip_many_entries, zip_raw

    password = secrets.token_urlsafe(16)
    user = user_create(username="bench", password=password, role=Role.RESEARCHER)
    client = APIClient()
    client.force_authenticate(user)
    client.get("/api/v1/corpora/")  # the first request imports the URL conf: not a refusal's cost
    line = b'{"message": "m", "response": "r"}\n'
    zeros, crc, inflated = deflate_repeated(b"\0" * MIB, 60)
    bombs = {
        "zip": zip_bomb(GIB, entries=5, folder="pub-1.0.0"),
        # A binary member (no line cap) of 60 MiB, under the total cap: inflated for real, to a
        # temporary file, then refused for what it holds.
        "zip60": zip_raw([("pub-1.0.0/references.parquet", 8, zeros, crc, inflated, 0o100644)]),
        "gzip": gzip_bomb(GIB),
        "gzip-short": gzip_bomb(GIB, piece=line * (MIB // len(line))),
        "entries": zip_many_entries(100_000),
    }
    folder = Path(_scratch())
    (folder / "bomb.jsonl.gz").write_bytes(bombs["gzip"])

    def refused(call: Callable[[], object]) -> str:
        try:
            call()
        except (ValidationError, CorpusInvalid, CommandError) as exc:
            text = exc.messages[0] if isinstance(exc, ValidationError) else str(exc)
            limit = re.search(r"limit ([A-Z_]+)", text)
            return f"{type(exc).__name__} {limit.group(1) if limit else text}"
        return "ACCEPTED"

    def api(url: str, field: str, filename: str, data: bytes, **extra: str) -> Callable[[], str]:
        def call() -> str:
            upload = ContentFile(data, name=filename)
            response = client.post(url, {field: upload, **extra}, format="multipart")
            body = response.json()
            limit = body.get("limit", "") if isinstance(body, dict) else ""
            problems = body.get("problems") if isinstance(body, dict) else None
            first = f"line {problems[0]['line']}: {problems[0]['message']}" if problems else ""
            return f"{response.status_code} {limit or first}"

        return call

    def release_service(data: bytes) -> Callable[[], str]:
        return lambda: refused(
            lambda: release_import_archive(source=data, owner=user, slug="bench-copy")
        )

    def corpus_service(data: bytes) -> Callable[[], str]:
        def call() -> str:
            corpus = corpus_create(owner=user, name="b", fmt="jsonl", source="bomb.jsonl.gz")
            return refused(lambda: corpus_build_index(corpus=corpus, raw=io.BytesIO(data)))

        return call

    def within_raised_ratio() -> str:
        with override_settings(ARCHIVE_MAX_RATIO=10**6):
            return release_service(bombs["zip60"])()

    def corpus_add() -> str:
        path = str(folder / "bomb.jsonl.gz")
        out = io.StringIO()
        return refused(lambda: call_command("corpus_add", path, "--owner", "bench", stdout=out))

    def json_body(text: str) -> Callable[[], str]:
        def call() -> str:
            response = client.post("/api/v1/datasets/", text, content_type="application/json")
            return f"{response.status_code} {response.json().get('detail', '')[19:60]}"

        return call

    def submission_check(data: bytes) -> Callable[[], str]:
        # The check a submission's upload runs before anything is stored (page, API, CLI).
        def call() -> str:
            try:
                parse_submission(file_lines(io.BytesIO(data)), ["a", "b"])
            except UploadRejected as exc:
                return f"UploadRejected {exc.problems[-2]}"
            return "ACCEPTED"

        return call

    def jsonl_import(lines: bytes) -> Callable[[], str]:
        return api("/api/v1/datasets/bench/import/", "file", "d.jsonl", lines)

    from annotate.datasets.services.datasets import dataset_create

    dataset_create(owner=user, name="Bench", slug="bench")
    deep = "[" * 1_000_000 + "]" * 1_000_000
    deep_line = '{"id": "a", "message": "m", "references": ' + "[" * 100_000 + "]" * 100_000 + "}"
    nan_lines = "".join(
        f'{{"id": "i{k}", "message": "m", "references": [{{"text": "t", "w": NaN}}]}}\n'
        for k in range(10_000)
    )
    mb = {k: f"{len(v) / MIB:.1f} MB" for k, v in bombs.items()}
    zips, gz = "/api/v1/releases/import/", "/api/v1/corpora/"
    imports = "POST …/datasets/bench/import/"
    return [
        Row("zip bomb", f"{mb['zip']} zip, 5 × 1 GiB", "release_import_archive",
            release_service(bombs["zip"])),
        Row("zip bomb", f"{mb['zip']} zip, 5 × 1 GiB", f"POST {zips}",
            api(zips, "archive", "r.zip", bombs["zip"], slug="bench-copy")),
        Row("zip, ratio cap lifted", f"{mb['zip60']} zip, 60 MiB member",
            "release_import_archive (spooled)", within_raised_ratio),
        Row("many-entry zip", f"{mb['entries']} zip, 100,000 entries", "release_import_archive",
            release_service(bombs["entries"])),
        Row("many-entry zip", f"{mb['entries']} zip, 100,000 entries", f"POST {zips}",
            api(zips, "archive", "r.zip", bombs["entries"])),
        Row("gzip bomb", f"{mb['gzip']} gzip, one 1 GiB line", "corpus_build_index",
            corpus_service(bombs["gzip"])),
        Row("gzip bomb", f"{mb['gzip']} gzip, one 1 GiB line", f"POST {gz}",
            api(gz, "file", "c.jsonl.gz", bombs["gzip"], name="c")),
        Row("gzip bomb", f"{mb['gzip']} gzip, one 1 GiB line", "manage.py corpus_add",
            corpus_add),
        Row("gzip ratio bomb", f"{mb['gzip-short']} gzip, 1 GiB of short lines", f"POST {gz}",
            api(gz, "file", "c.jsonl.gz", bombs["gzip-short"], name="c")),
        Row("deep-nested JSON body", "2 MB, 1,000,000 levels", "POST /api/v1/datasets/",
            json_body(deep)),
        Row("NaN / NUL JSON body", "NaN and \\u0000 fields", "POST /api/v1/datasets/",
            json_body('{"name": "x\\u0000", "slug": "x", "scale_min": NaN}')),
        Row("deep-nested JSONL line", "0.2 MB line, 100,000 levels", imports,
            jsonl_import(deep_line.encode())),
        Row("10,000 NaN JSONL lines", f"{len(nan_lines) / MIB:.1f} MB", imports,
            jsonl_import(nan_lines.encode())),
        # Django's file iteration joined a long line's pieces again at every chunk: 13 s here.
        Row("one-line JSONL", "48 MB, one line", imports, jsonl_import(b"x" * (48 * MIB))),
        # Each line wrong: 361 s to refusal when every line was read; now reading stops.
        Row("wrong JSONL lines", "48 MB, 16.7 million {} lines", imports,
            jsonl_import(b"{}\n" * (16 * MIB))),
        # Nothing wrong to stop at: every line is read (16.6 s before blank lines were spared
        # the checks), and the file holds no items.
        Row("blank lines", "48 MB, 50 million empty lines", imports,
            jsonl_import(b"\n" * (48 * MIB))),
        # Every line checked before: 22 s to refusal; now reading stops, as for datasets.
        Row("wrong submission lines", "44 MB, 4 million JSONL lines", "a submission's check",
            submission_check(b'{"hyp": 1}\n' * 4_000_000)),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", help="Row names (substrings) to run.")
    args = parser.parse_args()
    setup_django()
    rows = [r for r in build_rows() if not args.only or any(o in r.name for o in args.only)]
    print(f"{'input':<44} {'received by':<34} {'outcome':<36} {'ms':>7} {'RSS peak':>9} Py peak")
    for row in rows:
        label, path = f"{row.name}: {row.source}"[:44], row.path[:34]
        if row.run is None:
            print(f"{label:<44} {path:<34} (placeholder)")
            continue
        outcome, seconds, rss, py = measure(row.run)
        numbers = f"{seconds * 1000:7.1f} {rss:7.1f}MB {py:5.1f}MB"
        print(f"{label:<44} {path:<34} {outcome[:36]:<36} {numbers}")
    print("RSS peak: VmHWM - VmRSS around the refusal (peak reset first); Py peak: tracemalloc.")


if __name__ == "__main__":
    main()
