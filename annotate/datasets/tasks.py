"""Celery tasks of datasets: their counts recomputed (debounced after a change, and a periodic
sweep of stale ones)."""

from __future__ import annotations

from celery import shared_task

from annotate.datasets.services.datasets import (
    STATS_TASK,
    dataset_compute_stats,
    datasets_stats_refresh_stale,
)


@shared_task(name=STATS_TASK)
def dataset_compute_stats_task(dataset_id: int) -> dict[str, object]:
    return dataset_compute_stats(dataset_id=dataset_id)


@shared_task(name="annotate.datasets.tasks.datasets_refresh_stale_stats")
def datasets_refresh_stale_stats() -> int:
    return datasets_stats_refresh_stale()
