"""A run that fans out: parts in parallel (a Celery chord), then a step that ends the run.

The chord's callback carries an error callback, so one failed part fails the attempt; parts of a
given-up attempt that run later are fenced out by their attempt number.
"""

from __future__ import annotations

from celery import chord, signature
from celery.canvas import Signature

from core.runs.context import RunContext
from core.runs.kinds import DEFERRED

CHORD_FAILED_TASK = "runs.chord_failed"


def run_chord(
    context: RunContext, parts: list[Signature], finish: Signature, lease: float
) -> object:
    """Start the chord and return DEFERRED (the body's answer). Nothing beats while a part
    waits in the queue, so the attempt is leased for `lease` seconds first."""
    context.expect_parts(len(parts))
    context.lease(lease)
    failed = signature(CHORD_FAILED_TASK, args=(context.run_id, context.attempt), immutable=True)
    chord(parts)(finish.on_error(failed))
    return DEFERRED
