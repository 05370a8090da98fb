"""Time the demo story's load (`manage.py load_demo`, which `make run` calls) from an empty
database: the issue asks for it in under a minute.

Each run is a child process with a fresh temporary VAR_DIR (an empty SQLite database, as
`make run` starts from): it migrates, then loads the demo, and reports the load's seconds and
its peak resident memory. The test suite checks that the story is built and the same on every
load; how long that takes is this script's job, since timings in tests fail whenever a shared
machine is busy.

Usage: ``python bench/demo_load.py [--runs 3]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 60


def one_run() -> None:
    """In the child: migrate an empty database, load the demo, print the numbers as JSON."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DEBUG", "True")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "deltableu.settings")
    import django
    from django.core.management import call_command

    django.setup()
    from scoring.demo.services.load import demo_load_all

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    _, built = demo_load_all()
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "built": built, "peak_mb": peak_mb}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        one_run()
        return
    results = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-demo-") as var:
            env = {**os.environ, "VAR_DIR": var, "DATABASE_URL": f"sqlite:///{var}/db.sqlite3"}
            out = subprocess.run(
                [sys.executable, __file__, "--child"],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
        result = json.loads(out.stdout.strip().splitlines()[-1])
        if not result["built"]:
            raise SystemExit("the story was there already: the database was not empty")
        results.append(result)
        print(f"run {run + 1}: {result['seconds']:.1f} s, peak {result['peak_mb']:.0f} MB")
    best = min(r["seconds"] for r in results)
    print(
        f"demo story from an empty SQLite database: best {best:.1f} s of {len(results)}, worst "
        f"{max(r['seconds'] for r in results):.1f} s (target under {TARGET_SECONDS} s: "
        f"{best / TARGET_SECONDS:.2f} of it); peak resident memory "
        f"{max(r['peak_mb'] for r in results):.0f} MB"
    )


if __name__ == "__main__":
    main()
