"""Time importing a release archive against freezing the same release, in one process.

A dataset of ``--items`` items × ``--refs`` references is frozen into a draft release, given
weights and published; its archive (the zip `release_archive_build` writes) is then imported
as another researcher's copy. Both write the same snapshot rows (items, references), so the
freeze is the reference run: the import adds reading and checking the archive, and rebuilding
its files. Prints seconds, queries and the Python heap's peak of each, and the import's time
as a ratio of the freeze's.

Runs on a throwaway SQLite database in a temporary VAR_DIR, or on PostgreSQL with
``--database-url postgres://…/name`` (the database is flushed first: use a scratch one).

Usage: ``python bench/release_import.py [--items 10000] [--refs 3] [--database-url URL]``

Measured on a shared 2-core machine, 10,000 items × 3 references (the dev split's public), while
the import created its items one INSERT at a time → writing them in batches: PostgreSQL 1.26× the
freeze's time and 10,022 queries → 0.68× and 54; SQLite 1.11× and 10,336 → 0.76× and 397. The
heap's peak is about 106 MB for either, as for the freeze (the archive's rows are held whole).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.weights import setup_django  # noqa: E402  (the same throwaway database set-up)

BENCH_PASSWORD = "bench-" + os.urandom(8).hex()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--refs", type=int, default=3, help="references per item")
    parser.add_argument("--database-url", default="", help="PostgreSQL; default: temp SQLite")
    return parser.parse_args()


def timed(call: Callable[[], Any]) -> tuple[Any, float, int]:
    """(result, seconds, queries) of one call."""
    from django.db import connection

    queries = 0

    def count(execute, sql, params, many, context):
        nonlocal queries
        queries += 1
        return execute(sql, params, many, context)

    started = time.perf_counter()
    with connection.execute_wrapper(count):
        result = call()
    return result, time.perf_counter() - started, queries


def heap_peak(call: Callable[[], Any]) -> float:
    """MB at the Python heap's peak during a call, in a run of its own (tracing every
    allocation slows Python several times over, so it is not the timed run)."""
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return peak


def dataset_lines(n_items: int, n_refs: int) -> list[bytes]:
    return [
        json.dumps(
            {
                "id": f"i{k}",
                "split": "dev" if k % 4 else "test",
                "context": ["did you see the match?", f"turn {k}"],
                "message": f"message {k} about the game last night",
                "references": [{"text": f"reply {j} to message {k}"} for j in range(n_refs)],
            }
        ).encode()
        for k in range(n_items)
    ]


def main() -> None:
    args = parse_args()
    setup_django(args.database_url)
    from django.db import connection

    from annotate.accounts.services import user_create
    from annotate.datasets.services.datasets import dataset_create, dataset_import_file
    from annotate.releases.models import ReleaseReference
    from annotate.releases.services.archive import archive_bytes, archive_folder
    from annotate.releases.services.freeze import release_freeze
    from annotate.releases.services.importing import release_import_archive
    from annotate.releases.services.publish import release_build_files, release_publish

    owner, importer = (
        user_create(username=name, password=BENCH_PASSWORD, role="researcher")
        for name in ("bench-owner", "bench-importer")
    )
    dataset = dataset_create(owner=owner, name="Bench", slug="bench", visibility="public")
    dataset_import_file(dataset=dataset, lines=dataset_lines(args.items, args.refs), fmt="jsonl")

    def copy(slug: str) -> None:
        release_import_archive(source=archive, owner=importer, slug=slug)

    freeze = partial(release_freeze, dataset=dataset, created_by=owner, campaign=None)
    draft, *frozen = timed(lambda: freeze(version="1.0.0", public_splits=["dev"], unrated="zero"))
    # The weights a campaign's ratings would have given, so that the dev split can be public
    # and its references travel in the archive (a draft's rows may still change).
    ReleaseReference.objects.filter(release=draft).update(weight=1.0, z_weight=1.0, n=3)
    release = release_publish(release=draft)
    files = release_build_files(release=release)
    archive = archive_bytes(folder=archive_folder(release), files=files)
    _, *imported = timed(lambda: copy(slug="bench-copy"))
    frozen.append(heap_peak(lambda: freeze(version="1.0.1", public_splits=[], unrated="zero")))
    imported.append(heap_peak(lambda: copy(slug="bench-copy-2")))
    print(
        f"{connection.vendor}: {args.items:,} items × {args.refs} references, "
        f"archive {len(archive) / 2**20:.1f} MB"
    )
    for label, (seconds, queries, peak) in (("freeze", frozen), ("import", imported)):
        print(f"{label:<7} {seconds:7.2f} s  {queries:6,} queries  heap peak {peak:7.1f} MB")
    print(f"import / freeze: {imported[0] / frozen[0]:.2f}× the time")


if __name__ == "__main__":
    main()
