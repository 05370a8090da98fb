"""Sending work to the broker without failing the request that asked for it.

A request writes its rows first and sends the task once its transaction commits. If the broker
cannot be reached then, the rows are already safe and say "queued": the periodic sweeps send the
task again once the broker is back (they look for queued work that no worker took). So an
unreachable broker is logged here and never turned into a 500 after the data was written.
"""

from __future__ import annotations

import logging
from typing import Any

from kombu.exceptions import OperationalError

log = logging.getLogger(__name__)


def dispatch(task: Any, *args: Any, countdown: float | None = None) -> bool:
    """`task.apply_async(args)`; False (logged) when the broker is unreachable."""
    try:
        task.apply_async(args=args, countdown=countdown)
    except OperationalError as exc:
        log.warning("broker unreachable, %s%r waits for the sweep: %s", task.name, args, exc)
        return False
    return True
