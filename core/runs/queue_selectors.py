"""Whether a queued run has a worker to take it, from the workers' own heartbeats
(core/runs/workers.py), and why it waits when it has none, in the words every page, the API and
`manage.py runs` show.

A worker started with Celery's plain command (`celery -A deltableu worker`) consumes the default
queue only, so heavy work (scoring, studies, mining, indexes, archives) would sit queued with
nothing said. Heartbeats are rows in the database, so the answer needs no broker (the embedded
file-system broker cannot broadcast a question to the workers at all) and costs one query,
kept CONSUMERS_CACHE_SECONDS in Django's cache so a list of runs asks once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from core.runs.kinds import HEAVY_QUEUE, get_kind, queue_for
from core.runs.models import Run, RunState
from core.runs.steps import workers_live

# A worker that consumes the queue picks a message up within its polling interval (0.2 s for
# the file-system broker, at once for Redis); a run queued for longer than this either has no
# worker or waits behind others, and only then is it worth the question.
WAIT_WARNING_SECONDS = 10
# About one worker heartbeat: a worker started after the warning clears it by the next poll.
CONSUMERS_CACHE_SECONDS = 5
CACHE_KEY = "runs-queue-consumers"

START_WORKER = "`make worker`, or `celery -A deltableu worker -Q {queues}`"


def queue_consumers() -> frozenset[str]:
    """The names of the queues at least one live worker consumes (its heartbeat is recent)."""
    cached = cache.get(CACHE_KEY)
    if cached is None:
        queues = {queue for worker in workers_live(timezone.now()) for queue in worker.queues}
        cached = sorted(queues)
        cache.set(CACHE_KEY, cached, CONSUMERS_CACHE_SECONDS)
    return frozenset(cached)


def _start_command() -> str:
    queues = f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.CELERY_HEAVY_QUEUE}"
    return START_WORKER.format(queues=queues)


def waiting_reason(run: Run, *, now: datetime | None = None) -> str:
    """Why a queued run still waits, in plain words: the broker has not accepted its message,
    or no live worker takes its queue (naming the queue, and the command that starts a worker
    for it); "" when it is not queued, has waited less than WAIT_WARNING_SECONDS, or a live
    worker consumes its queue (it waits behind other work)."""
    if run.state != RunState.QUEUED:
        return ""
    since = run.dispatched_at or run.created_at
    if since is None or (now or timezone.now()) - since < timedelta(seconds=WAIT_WARNING_SECONDS):
        return ""
    if run.dispatched_at is None:
        return (
            "The broker has not accepted it yet (it is down or cannot be reached); it is sent "
            "as soon as the broker answers, and nothing is lost meanwhile."
        )
    try:
        kind = get_kind(run.kind)
    except LookupError:
        return ""  # a kind no longer registered: no worker could run it either way
    queue = queue_for(kind)
    consumers = queue_consumers()
    if queue in consumers:
        return ""
    work = "heavy work" if kind.weight == HEAVY_QUEUE else "light work"
    running = (
        f"the running workers take only {', '.join(sorted(consumers))}"
        if consumers
        else "no worker is running at all"
    )
    return (
        f"No running worker takes {work} (queue {queue}): {running}. This waits until one "
        f"starts: {_start_command()}."
    )
