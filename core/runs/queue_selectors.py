"""Whether a queued run has a worker to take it, asked of the workers through Celery's control
API, and why it waits when it has none, in the words every page and API answer shows.

A worker started with Celery's plain command (`celery -A deltableu worker`) consumes the default
queue only, so heavy work (scoring, studies, mining, indexes, archives) would sit queued with
nothing said. The answer is cached briefly: a page view waits at most a second, once every
CONSUMERS_CACHE_SECONDS, and the broker is never asked more often than that.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from core.runs.kinds import HEAVY_QUEUE, get_kind, queue_for
from core.runs.models import Run, RunState

log = logging.getLogger(__name__)

# A worker that consumes the queue picks a message up within its polling interval (0.2 s for
# the file-system broker, at once for Redis); a run queued for longer than this either has no
# worker or waits behind others, and only then is it worth the question.
WAIT_WARNING_SECONDS = 10
# Workers answer a broadcast within milliseconds, but a worker on a loaded machine may take a
# few hundred: too short a wait would report a running worker missing. Connecting plus waiting
# is what a page view waits at most (with no worker at all, every answer takes the whole wait),
# so together they stay within a second.
CONNECT_TIMEOUT_SECONDS = 0.3
INSPECT_TIMEOUT_SECONDS = 0.7
# Long enough that a busy page (or a list of runs) asks the broker once, short enough that a
# worker started after the warning clears it before the next poll finds the run still queued.
CONSUMERS_CACHE_SECONDS = 20
CACHE_KEY = "runs-queue-consumers"

START_WORKER = "`make worker`, or `celery -A deltableu worker -Q {queues}`"


def queue_consumers() -> frozenset[str] | None:
    """The names of the queues at least one running worker consumes; None when the broker
    cannot be asked (down, or an error). Cached for CONSUMERS_CACHE_SECONDS, either answer."""
    cached = cache.get(CACHE_KEY)
    if cached is None:
        found = _ask_workers()
        cached = {"queues": None if found is None else sorted(found)}
        cache.set(CACHE_KEY, cached, CONSUMERS_CACHE_SECONDS)
    return None if cached["queues"] is None else frozenset(cached["queues"])


def _ask_workers() -> frozenset[str] | None:
    app = current_app
    try:
        # A fresh connection that fails at once: the producer pool's own would retry for
        # seconds against a broker that is down, and a page must not wait for that.
        with app.connection_for_write(connect_timeout=CONNECT_TIMEOUT_SECONDS) as connection:
            connection.ensure_connection(max_retries=0, timeout=CONNECT_TIMEOUT_SECONDS)
            inspector = app.control.inspect(timeout=INSPECT_TIMEOUT_SECONDS, connection=connection)
            answers = inspector.active_queues() or {}  # None: no worker answered
    except Exception as exc:  # whatever the transport raises, the page must still render
        log.warning("cannot ask the workers which queues they consume: %s", exc)
        return None
    return frozenset(
        queue["name"]
        for queues in answers.values()
        for queue in queues or ()
        if isinstance(queue, dict) and "name" in queue
    )


def _start_command() -> str:
    queues = f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.CELERY_HEAVY_QUEUE}"
    return START_WORKER.format(queues=queues)


def waiting_reason(run: Run, *, now: datetime | None = None) -> str:
    """Why a queued run still waits, in plain words with the command that starts a worker for
    its queue; "" when it is not queued, has waited less than WAIT_WARNING_SECONDS since its
    message was sent, or a running worker consumes its queue (it waits behind other work)."""
    if run.state != RunState.QUEUED:
        return ""
    since = run.dispatched_at or run.created_at
    if since is None or (now or timezone.now()) - since < timedelta(seconds=WAIT_WARNING_SECONDS):
        return ""
    try:
        kind = get_kind(run.kind)
    except LookupError:
        return ""  # a kind no longer registered: no worker could run it either way
    queue = queue_for(kind)
    consumers = queue_consumers()
    if consumers is None:
        return (
            "Cannot tell whether a worker is running: the broker did not answer. If none is, "
            f"start one with {_start_command()}."
        )
    if queue in consumers:
        return ""
    work = "heavy work" if kind.weight == HEAVY_QUEUE else "light work"
    return (
        f"No running worker takes {work} (queue {queue}), so this waits until one starts: "
        f"{_start_command()}."
    )
