"""Each attempt's temporary files: removed at every ending of the attempt.

Two places: a local folder under RUNS_TMP_DIR (on the worker's own disk), and a folder in the
file storage (shared by every machine) for parts one task hands to another, such as a chord's.
Both are named by run and attempt. A killed worker cannot remove its local folder, so a starting
worker removes every local folder whose attempt is no longer running; the storage folder is
removed by whoever ends the attempt, the sweep included.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from django.conf import settings

from core.filesets import folder_delete

_FOLDER = re.compile(r"^(\d+)-(\d+)$")


def tmp_root() -> Path:
    return Path(settings.RUNS_TMP_DIR)


def tmp_folder(run_id: int, attempt: int) -> Path:
    return tmp_root() / f"{run_id}-{attempt}"


def run_storage_folder(run_id: int, attempt: int) -> str:
    return f"runs/{run_id}-{attempt}"


def tmp_remove(run_id: int, attempt: int) -> None:
    """Remove both folders of an attempt."""
    shutil.rmtree(tmp_folder(run_id, attempt), ignore_errors=True)
    folder_delete(run_storage_folder(run_id, attempt))


def tmp_remove_orphans(live: set[tuple[int, int]]) -> int:
    """Remove the folders of attempts that are not in `live` (run id, attempt); return how many."""
    root = tmp_root()
    if not root.is_dir():
        return 0
    removed = 0
    for folder in root.iterdir():
        match = _FOLDER.match(folder.name)
        if match and (int(match[1]), int(match[2])) not in live:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed
