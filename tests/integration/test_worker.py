"""Tasks enqueued by the web app after commit run in a real worker process."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django_celery_results.models import TaskResult

from annotate.datasets.models import Dataset
from annotate.datasets.tasks import datasets_refresh_stale_stats
from tests.conftest import DATA
from tests.workers import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_an_import_through_the_api_has_its_stats_computed_by_the_worker(
    celery_worker_process, make_dataset, client_for, owner
):
    dataset = make_dataset(data=None)
    file = SimpleUploadedFile("chat.jsonl", (DATA / "small.jsonl").read_bytes())
    response = client_for(owner).post(f"/api/v1/datasets/{dataset.slug}/import/", {"file": file})
    assert response.status_code == 201

    done = wait_for(
        lambda: Dataset.objects.filter(pk=dataset.pk, stats_updated_at__isnull=False).first()
    )
    assert done.stats["items"] == 3 and done.stats["references"] == 6
    result = TaskResult.objects.get(task_name="annotate.datasets.tasks.dataset_compute_stats")
    assert result.status == "SUCCESS"


def test_the_periodic_sweep_runs_in_the_worker(celery_worker_process, make_dataset):
    make_dataset(slug="stale", data=None)  # created without an import: stats never computed
    async_result = datasets_refresh_stale_stats.delay()
    wait_for(lambda: TaskResult.objects.filter(task_id=async_result.id, status="SUCCESS").exists())
    assert Dataset.objects.get(slug="stale").stats == {
        "items": 0,
        "references": 0,
        "items_per_split": {},
        "references_per_origin": {},
    }
