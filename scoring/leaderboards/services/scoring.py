"""Scoring a submission as a run of the run engine: per-item statistics, then scores.

Per-item statistics depend only on an item's hypothesis and the prepared references, so a large
submission is cut into chunks of items; the chunks' rows, stacked in order, are exactly the rows
of scoring in one piece (a test checks it). Up to SCORING_CHUNK_ITEMS a submission is scored in
its run's own task; above it, the chunks run in parallel as a chord whose parts store their rows
under the attempt's own storage folder, removed at every ending of the attempt.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
from celery import signature
from django.conf import settings

from core.runs.canvas import run_chord
from core.runs.context import RunContext
from core.runs.engine import run_succeed
from core.runs.tempfiles import run_storage_folder
from scoring.leaderboards.models import Score, Submission
from scoring.leaderboards.selectors.stored import load_matrix
from scoring.leaderboards.services.references import (
    chunk_bounds,
    reference_index,
    save_matrix,
    submission_chunk_stats,
)
from scoring.metrics import bootstrap_ci, result_with_nrefs

log = logging.getLogger(__name__)

BOOTSTRAP_RESAMPLES = 1000
# The chord's tasks (scoring/leaderboards/tasks.py registers them under these names).
SCORE_CHUNK_TASK = "scoring.leaderboards.tasks.score_chunk"
FINISH_TASK = "scoring.leaderboards.tasks.finish_submission"


SCORING_KIND = "scoring"


def submission_scope(submission_id: int) -> str:
    return f"submission:{submission_id}"


@dataclass(frozen=True)
class ChunkPlan:
    submission_id: int
    run_id: int
    attempt: int
    metrics: list[str]
    bounds: list[tuple[int, int]]

    @property
    def steps(self) -> int:
        return len(self.metrics) * len(self.bounds)


def chunk_name(plan: ChunkPlan, metric: str, start: int) -> str:
    # Under the attempt's storage folder: parts of a given-up attempt never mix with a new one's.
    return f"{run_storage_folder(plan.run_id, plan.attempt)}/{metric}-{start:09d}.npy"


def submission_plan(run: RunContext) -> ChunkPlan:
    submission = Submission.objects.select_related("leaderboard").get(
        pk=run.params["submission_id"]
    )
    return ChunkPlan(
        submission.pk,
        run.run_id,
        run.attempt,
        submission.leaderboard.metrics,
        chunk_bounds(submission.n_lines),
    )


def scoring_run(run: RunContext) -> object:
    """The run's body: score in this task, or fan the chunks out to a chord."""
    plan = submission_plan(run)
    run.progress(0, plan.steps, "Scoring")
    if len(plan.bounds) > 1:
        parts = [
            signature(SCORE_CHUNK_TASK, args=(run.run_id, run.attempt, metric, start, stop))
            for metric in plan.metrics
            for start, stop in plan.bounds
        ]
        finish = signature(FINISH_TASK, args=(run.run_id, run.attempt), immutable=True)
        return run_chord(run, parts, finish, lease=settings.SCORING_CHORD_LEASE_SECONDS)
    stats: dict[str, np.ndarray] = {}
    with run.stage("statistics"):
        for done, metric_name in enumerate(plan.metrics, start=1):
            stats[metric_name] = _chunk_stats(plan, metric_name, *plan.bounds[0])
            run.progress(done, plan.steps)
    return submission_finish(run, plan, stats)


def _chunk_stats(plan: ChunkPlan, metric_name: str, start: int, stop: int) -> np.ndarray:
    submission = Submission.objects.select_related("leaderboard__release").get(
        pk=plan.submission_id
    )
    references = reference_index(submission.leaderboard, metric_name)
    return submission_chunk_stats(submission, references, start, stop)


def score_chunk(run: RunContext, metric_name: str, start: int, stop: int) -> str:
    """A chord part: compute and store one chunk's statistics; return its storage name."""
    plan = submission_plan(run)
    with run.stage(f"statistics {metric_name}"):
        stats = _chunk_stats(plan, metric_name, start, stop)
    run.check()  # a superseded attempt stops before it writes
    name = save_matrix(chunk_name(plan, metric_name, start), stats)
    run.advance()
    return name


def finish_chunks(run: RunContext) -> object:
    """The chord's last step: gather the parts' rows and store the scores."""
    plan = submission_plan(run)
    stats = {
        metric: np.concatenate([load_matrix(chunk_name(plan, metric, s)) for s, _ in plan.bounds])
        for metric in plan.metrics
    }
    return submission_finish(run, plan, stats)


def _score_values(metric_name: str, board: Any, stats: np.ndarray) -> tuple[Any, Any]:
    references = reference_index(board, metric_name)
    result = result_with_nrefs(references.metric, stats.sum(axis=0), references.nrefs)
    interval = bootstrap_ci(references.metric, stats, n_samples=BOOTSTRAP_RESAMPLES)
    return result, interval


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def submission_finish(run: RunContext, plan: ChunkPlan, stats: dict[str, np.ndarray]) -> object:
    """Store the statistics and the scores, and end the run, in one transaction under the run's
    row lock: a cancelled or superseded attempt writes nothing."""
    submission = Submission.objects.select_related("leaderboard__release").get(
        pk=plan.submission_id
    )
    with run.stage("scores"):
        values = {m: _score_values(m, submission.leaderboard, stats[m]) for m in plan.metrics}
        files = {m: save_matrix(f"stats/{submission.pk}/{m}.npy", stats[m]) for m in plan.metrics}

    def write_scores() -> None:
        for metric_name, (result, interval) in values.items():
            Score.objects.update_or_create(
                submission=submission,
                signature=result.signature,
                defaults={
                    "metric": metric_name,
                    "score": float(result.score),
                    "ci_low": float(interval.low),
                    "ci_high": float(interval.high),
                    "extras": _jsonable(result.extras),
                    "stats_file": files[metric_name],
                },
            )

    run_succeed(run, {"scores": len(values)}, write=write_scores)
    return None
