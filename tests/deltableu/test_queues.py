"""Heavy work and light work travel on separate Celery queues, so a big submission never
delays raters (workers can be given one queue each). Every run goes through the one task
`runs.execute`, sent to the queue of its kind's weight; the parts of a chord are routed by name."""

import pytest
from django.conf import settings

from core.runs import engine
from core.runs.engine import run_create
from core.runs.kinds import kind_names
from core.runs.tasks import EXECUTE_TASK
from deltableu.celery import app

LIGHT = [
    "annotate.rating.tasks.rater_qc",
    "annotate.rating.tasks.campaign_weights",
    "annotate.rating.tasks.leases_reclaim",
    "annotate.datasets.tasks.dataset_compute_stats",
    "runs.sweep",
]
HEAVY_KINDS = [
    "corpus-index",
    "correlation-study",
    "mining",
    "release-archive",
    "replicates",
    "scoring",
]


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


def test_every_kind_of_run_is_heavy():
    assert kind_names() == HEAVY_KINDS, "a new kind: say here which queue its runs belong on"


@pytest.mark.django_db
@pytest.mark.parametrize("kind", HEAVY_KINDS)
def test_heavy_runs_are_sent_to_the_heavy_queue(
    kind, owner, monkeypatch, django_capture_on_commit_callbacks
):
    assert EXECUTE_TASK in app.tasks and EXECUTE_TASK not in settings.CELERY_TASK_ROUTES
    sent = []

    def dispatch(task, *args, countdown=None, queue=None):
        sent.append((task, args, queue))
        return True

    monkeypatch.setattr(engine, "dispatch", dispatch)
    with django_capture_on_commit_callbacks(execute=True):
        run = run_create(kind=kind, owner=owner)
    assert sent == [(EXECUTE_TASK, (run.pk, 1), settings.CELERY_HEAVY_QUEUE)]
