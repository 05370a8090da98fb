"""Heavy work and light work travel on separate Celery queues, so a big submission never
delays raters (workers can be given one queue each)."""

import pytest
from django.conf import settings

from deltableu.celery import app

LIGHT = [
    "annotate.tasks.rater_qc", "annotate.tasks.output_rater_qc", "annotate.tasks.campaign_weights",
    "annotate.tasks.leases_reclaim", "annotate.tasks.dataset_compute_stats",
    "scoring.tasks.requeue_stuck_submissions",
]  # fmt: skip


@pytest.fixture(autouse=True, scope="module")
def _tasks_loaded():
    app.loader.import_default_modules()  # what a worker does at start: every tasks module


def _queue(task_name: str) -> str:
    return app.amqp.router.route({}, task_name)["queue"].name


@pytest.mark.parametrize("task_name", settings.HEAVY_TASKS)
def test_heavy_tasks_go_to_the_heavy_queue(task_name):
    assert task_name in app.tasks, "a routed name must be a real task"
    assert _queue(task_name) == settings.CELERY_HEAVY_QUEUE == "celery-heavy"


@pytest.mark.parametrize("task_name", LIGHT)
def test_light_tasks_stay_on_the_default_queue(task_name):
    assert task_name in app.tasks
    assert _queue(task_name) == settings.CELERY_TASK_DEFAULT_QUEUE == "celery"
