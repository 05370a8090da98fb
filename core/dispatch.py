"""Sending work to the broker without failing the request that asked for it.

A request writes its rows first and sends the task once its transaction commits. If the broker
cannot be reached then, the rows are already safe and say "queued": the run engine's outbox (or,
for the light debounced tasks, their periodic sweeps) sends the task again once the broker is
back. So an unreachable broker is logged here and never turned into a 500 after the data was
written.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import current_app
from django.core.cache import cache
from kombu.exceptions import OperationalError

log = logging.getLogger(__name__)


def dispatch(
    task_name: str, *args: Any, countdown: float | None = None, queue: str | None = None
) -> bool:
    """Send the task registered as ``task_name`` with ``args``; False (logged) when the broker
    is unreachable. By name, so a service starts work without importing the tasks module that
    runs it (tasks call services, never the reverse); each app's ``ready`` registers its tasks."""
    options: dict[str, Any] = {"countdown": countdown}
    if queue:
        options["queue"] = queue
    try:
        current_app.tasks[task_name].apply_async(args=args, **options)
    except OperationalError as exc:
        log.warning("broker unreachable, %s%r waits for the sweep: %s", task_name, args, exc)
        return False
    return True


def dispatch_debounced(key: str, seconds: float, task_name: str, *args: Any) -> bool:
    """Send ``task_name`` with ``args`` in ``seconds``, unless a call with the same ``key`` did in
    the last ``seconds``: a burst of answers shares one recomputation, which runs after the burst
    and so sees all of it. False when this call sent nothing (debounced or broker unreachable)."""
    if not cache.add(f"debounce-{key}", 1, seconds):
        return False
    return dispatch(task_name, *args, countdown=seconds)
