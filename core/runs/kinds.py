"""The registry of run kinds: what each kind of long work does, and how it is retried.

Apps register their kinds when Django starts (in their AppConfig.ready); the engine looks a run's
kind up here to find its body, its queue and its hooks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    from core.runs.context import RunContext
    from core.runs.models import Run

LIGHT_QUEUE = "light"
HEAVY_QUEUE = "heavy"


@dataclass(frozen=True)
class RunKind:
    """One kind of long work.

    body: does the work; reports through its RunContext and returns the result to store (a
        JSON-able dict), or `DEFERRED` when the run goes on in other tasks (a chord) that end it.
    weight: LIGHT_QUEUE or HEAVY_QUEUE, so that heavy work never delays raters' light tasks.
    grace: how long a running attempt may go without a heartbeat before it is presumed dead.
    refusals: exception types that are the input's fault: the run fails at once with the
        message, never retried (retrying cannot change a bad file).
    on_start / on_end: hooks called inside the transaction that changes the run's state, so an
        app's own rows (a submission's status, say) change with it or not at all.
    """

    name: str
    body: Callable[[RunContext], dict[str, Any] | object]
    weight: str = HEAVY_QUEUE
    max_attempts: int = 3
    grace: timedelta = timedelta(seconds=30)  # six missed heartbeats
    refusals: tuple[type[BaseException], ...] = ()
    on_start: Callable[[Run], None] | None = None
    on_end: Callable[[Run], None] | None = None


DEFERRED = object()  # a body's answer: "not over yet, other tasks of this attempt will end it"

_KINDS: dict[str, RunKind] = {}


def register_kind(kind: RunKind) -> RunKind:
    _KINDS[kind.name] = kind
    return kind


def get_kind(name: str) -> RunKind:
    try:
        return _KINDS[name]
    except KeyError:
        raise LookupError(f"No run kind {name!r} is registered.") from None


def kind_names() -> list[str]:
    return sorted(_KINDS)


def queue_for(kind: RunKind) -> str:
    """The Celery queue a run of this kind is sent to (settings name both)."""
    if kind.weight == HEAVY_QUEUE:
        return settings.CELERY_HEAVY_QUEUE
    return settings.CELERY_TASK_DEFAULT_QUEUE
