"""`{% mining_progress dataset %}`: the latest mining run's progress bar, for the dataset page."""

from __future__ import annotations

from django import template

from annotate.datasets.models import Dataset
from annotate.mining.selectors import mining_job_latest

register = template.Library()


@register.inclusion_tag("annotate/mining/mining_progress.html")
def mining_progress(dataset: Dataset) -> dict:
    return {"job": mining_job_latest(dataset=dataset), "dataset": dataset}
