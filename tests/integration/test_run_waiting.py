"""Real workers beat for themselves: a heavy run while only a light-queue worker runs (as
Celery's plain command starts one) says it waits for a heavy worker; once a heavy worker runs,
it does not, and once that worker is killed (no graceful goodbye) and its heartbeat goes stale,
it says so again. Nothing is stubbed here (tests/core/test_run_waiting.py writes heartbeats)."""

import time

import pytest
from django.core.cache import cache

from core.runs.engine import run_create
from core.runs.models import Worker
from core.runs.queue_selectors import queue_consumers, waiting_reason
from core.runs.steps import SILENT_BEATS
from tests.runs_kit import waited

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# Queues of this test's own: the session's shared worker (both default queues) must not count.
LIGHT, HEAVY = "waiting-light", "waiting-heavy"


def test_a_heavy_run_waits_for_a_heavy_worker_until_one_runs(
    start_worker, owner, client_for, settings
):
    settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_HEAVY_QUEUE = LIGHT, HEAVY
    # Heartbeats every second: a killed worker is stale after six, not thirty.
    settings.RUNS_HEARTBEAT_SECONDS = 1
    own = {
        "CELERY_TASK_DEFAULT_QUEUE": LIGHT,
        "CELERY_HEAVY_QUEUE": HEAVY,
        "RUNS_HEARTBEAT_SECONDS": "1",
    }
    light = start_worker(**own, QUEUES=LIGHT)
    # Never sent (its body would need a submission): it stays queued, as one that no worker
    # takes does; what is asked is who consumes which queue.
    run = waited(run_create(kind="scoring", owner=owner, send=False))
    heavy = None
    try:
        cache.clear()
        reason = client_for(owner).get(f"/api/v1/runs/{run.pk}/").json()["waiting_reason"]
        assert reason.startswith(f"No running worker takes heavy work (queue {HEAVY})")
        assert f"`celery -A deltableu worker -Q {LIGHT},{HEAVY}`" in reason

        heavy = start_worker(**own, QUEUES=HEAVY)
        cache.clear()  # the answer is cached for a while; a page shows the news after that
        assert {LIGHT, HEAVY} <= queue_consumers()
        assert waiting_reason(run) == ""
        assert client_for(owner).get(f"/api/v1/runs/{run.pk}/").json()["waiting_reason"] == ""

        heavy.kill()  # SIGKILL: its row stays, its heartbeat stops
        time.sleep(SILENT_BEATS + 1)
        cache.clear()
        reason = waiting_reason(run)
        assert reason.startswith(f"No running worker takes heavy work (queue {HEAVY})")
        # The session's shared worker (the default queues) may be running too.
        taken = reason.split("the running workers take only ")[1].split(". This")[0].split(", ")
        assert LIGHT in taken and HEAVY not in taken

        light.stop()  # a graceful stop says goodbye: its row goes at once, stale or not
        assert not Worker.objects.filter(queues=[LIGHT]).exists()
        assert Worker.objects.filter(queues=[HEAVY]).exists()  # the killed one's stays, stale
    finally:
        for worker in (light, heavy):
            if worker is not None and worker.process.poll() is None:
                worker.stop()
