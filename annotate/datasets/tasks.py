"""Celery tasks of datasets: their counts recomputed (debounced after a change, and a periodic
sweep of stale ones)."""

from __future__ import annotations

from celery import shared_task
from django.db.models import F, Q

from annotate.datasets.models import Dataset
from annotate.datasets.services.datasets import STATS_TASK, dataset_compute_stats


@shared_task(name=STATS_TASK)
def dataset_compute_stats_task(dataset_id: int) -> dict[str, object]:
    return dataset_compute_stats(dataset_id=dataset_id)


@shared_task(name="annotate.datasets.tasks.datasets_refresh_stale_stats")
def datasets_refresh_stale_stats() -> int:
    stale = Dataset.objects.filter(
        Q(stats_updated_at__isnull=True) | Q(stats_updated_at__lt=F("updated_at"))
    ).values_list("pk", flat=True)
    for dataset_id in stale:
        dataset_compute_stats(dataset_id=dataset_id)
    return len(stale)
