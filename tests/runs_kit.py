"""Running a run of the run engine in the test's own process, as a worker would."""

from __future__ import annotations

from core.runs.engine import run_execute
from core.runs.models import Run


def execute(run: Run | int) -> Run:
    """Execute the run's current attempt here (claim, body, end) and return it refreshed."""
    run_id = run if isinstance(run, int) else run.pk
    current = Run.objects.get(pk=run_id)
    run_execute(run_id=run_id, attempt=current.attempt)
    return Run.objects.get(pk=run_id)
