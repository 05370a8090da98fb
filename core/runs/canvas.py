"""A run that fans out: parts in parallel (a Celery chord), then a step that ends the run.

The chord's callback carries an error callback, so one failed part fails the attempt; parts of a
given-up attempt that run later are fenced out by their attempt number.
"""

from __future__ import annotations

from celery import chord
from celery.canvas import Signature

from core.runs.context import RunContext
from core.runs.kinds import DEFERRED


def run_chord(
    context: RunContext, parts: list[Signature], finish: Signature, lease: float
) -> object:
    """Start the chord and return DEFERRED (the body's answer). Nothing beats while a part
    waits in the queue, so the attempt is leased for `lease` seconds first."""
    from core.runs.tasks import chord_failed_task

    context.lease(lease)
    chord(parts)(finish.on_error(chord_failed_task.si(context.run_id, context.attempt)))
    return DEFERRED
