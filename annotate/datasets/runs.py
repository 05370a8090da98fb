"""A dataset's runs (mining): their key, and stopping them when the dataset goes."""

from __future__ import annotations

from core.runs.engine import run_cancel
from core.runs.models import Run


def dataset_scope(dataset_id: int) -> str:
    """The key of a dataset's runs (the run engine keeps keys, not foreign keys)."""
    return f"dataset:{dataset_id}"


def dataset_runs_cancel(*, dataset_id: int) -> int:
    """Ask the dataset's runs under way to stop (it is being deleted); returns how many. A
    queued one stops at once, a running one at its next report (and its body checks that the
    dataset is still there before writing)."""
    runs = Run.objects.filter(scope=dataset_scope(dataset_id), state__in=Run.ACTIVE)
    return sum(run_cancel(run=run) for run in runs)
