"""A worker that starts sweeps at once: work left by a killed worker is retried without waiting
for the next periodic sweep, and this machine's orphaned temporary folders are removed."""

from __future__ import annotations

import logging
from typing import Any

from celery.signals import worker_ready

log = logging.getLogger(__name__)


@worker_ready.connect
def _sweep_on_start(**_: Any) -> None:
    from core.runs.sweep import run_sweep, run_sweep_local_files

    try:
        removed = run_sweep_local_files()
        report = run_sweep()
    except Exception:  # a worker must start even if the database is briefly away
        log.exception("the start-up sweep failed; the periodic sweep will do it")
        return
    log.info("start-up sweep: %s; %s orphaned folders removed", report, removed)
