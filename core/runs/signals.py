"""A starting worker sweeps at once (work left by a killed worker is retried without waiting for
the next periodic sweep, and this machine's orphaned temporary folders are removed), then beats
for itself until it stops (core/runs/workers.py)."""

from __future__ import annotations

import logging
from typing import Any

from celery.signals import task_received, worker_ready, worker_shutdown

log = logging.getLogger(__name__)

_heartbeats: list[Any] = []  # this process's worker heartbeat, once its worker is ready


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


@worker_ready.connect
def _beat_from_start(sender: Any, **_: Any) -> None:
    from core.runs.workers import WorkerHeartbeat

    heartbeat = WorkerHeartbeat(sender.hostname, sender.app.amqp.queues.consume_from.keys())
    heartbeat.start()
    _heartbeats.append(heartbeat)


@task_received.connect
def _note_received(request: Any, **_: Any) -> None:
    from core.runs.workers import note_received

    note_received(request.name)


@worker_shutdown.connect
def _stop_beating(**_: Any) -> None:
    while _heartbeats:
        _heartbeats.pop().stop()
