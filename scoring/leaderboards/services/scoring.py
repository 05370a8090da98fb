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
from scoring.leaderboards.selectors.stored import load_matrix, load_profile
from scoring.leaderboards.services.rank_groups import leaderboard_rank_groups_store
from scoring.leaderboards.services.references import (
    Chunk,
    chunk_bounds,
    reference_index,
    save_matrix,
    save_profile,
    submission_chunk,
)
from scoring.metrics import bootstrap_ci, concat_profiles, get_entry, result_with_nrefs

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
    # Read once by each task of the run (its leaderboard and release with it): every metric's
    # chunk and the scores' writing use this copy.
    submission: Submission
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
    submission = Submission.objects.select_related("leaderboard__release").get(
        pk=run.params["submission_id"]
    )
    return ChunkPlan(
        submission,
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
    chunks: dict[str, Chunk] = {}
    with run.stage("statistics"):
        for done, metric_name in enumerate(plan.metrics, start=1):
            chunks[metric_name] = plan_chunk(plan, metric_name, *plan.bounds[0])
            run.progress(done, plan.steps)
    return submission_finish(run, plan, chunks)


def plan_chunk(plan: ChunkPlan, metric_name: str, start: int, stop: int) -> Chunk:
    references = reference_index(plan.submission.leaderboard, metric_name)
    return submission_chunk(plan.submission, references, start, stop)


def _profile_name(plan: ChunkPlan, metric: str, start: int) -> str:
    return chunk_name(plan, metric, start).removesuffix(".npy") + ".profile"


def score_chunk(run: RunContext, metric_name: str, start: int, stop: int) -> str:
    """A chord part: compute and store one chunk's statistics (and a weighted metric's weight
    profile); return the statistics' storage name."""
    plan = submission_plan(run)
    with run.stage(f"statistics {metric_name}"):
        chunk = plan_chunk(plan, metric_name, start, stop)
    run.check()  # a superseded attempt stops before it writes
    name = save_matrix(chunk_name(plan, metric_name, start), chunk.stats)
    if chunk.profile is not None:
        save_profile(_profile_name(plan, metric_name, start), chunk.profile)
    run.advance()
    return name


def _gathered(plan: ChunkPlan, metric: str) -> Chunk:
    stats = np.concatenate([load_matrix(chunk_name(plan, metric, s)) for s, _ in plan.bounds])
    if not get_entry(metric).uses_weights:
        return Chunk(stats, None)
    parts = [load_profile(_profile_name(plan, metric, s)) for s, _ in plan.bounds]
    return Chunk(stats, concat_profiles(parts))


def finish_chunks(run: RunContext) -> object:
    """The chord's last step: gather the parts' rows (and profiles) and store the scores."""
    plan = submission_plan(run)
    return submission_finish(
        run, plan, {metric: _gathered(plan, metric) for metric in plan.metrics}
    )


def _score_values(metric_name: str, board: Any, chunk: Chunk) -> tuple[Any, Any]:
    references = reference_index(board, metric_name)
    result = result_with_nrefs(references.metric, chunk.stats.sum(axis=0), references.nrefs)
    interval = bootstrap_ci(references.metric, chunk.stats, n_samples=BOOTSTRAP_RESAMPLES)
    return result, interval


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _save_files(submission_id: int, metric: str, chunk: Chunk) -> dict:
    folder = f"stats/{submission_id}/{metric}"
    files = {"stats_file": save_matrix(f"{folder}.npy", chunk.stats), "profile_file": ""}
    if chunk.profile is not None:
        files["profile_file"] = save_profile(f"{folder}.profile", chunk.profile)
    return files


# What a scoring writes into a score's row: a rescoring's upsert sets them all again.
SCORE_VALUES = [
    "metric",
    "score",
    "ci_low",
    "ci_high",
    "extras",
    "stats_file",
    "profile_file",
    "replicates_file",
    "rater_ci_low",
    "rater_ci_high",
]


def submission_finish(run: RunContext, plan: ChunkPlan, chunks: dict[str, Chunk]) -> object:
    """Store the statistics and the scores, and end the run, in one transaction under the run's
    row lock: a cancelled or superseded attempt writes nothing."""
    submission = plan.submission
    with run.stage("scores"):
        values = {m: _score_values(m, submission.leaderboard, chunks[m]) for m in plan.metrics}
        files = {m: _save_files(submission.pk, m, chunks[m]) for m in plan.metrics}

    # A new score's replicates come from a run of their own (services/uncertainty.py): whatever
    # an earlier scoring of this signature left is not this one's.
    rows = [
        Score(
            submission=submission,
            signature=result.signature,
            metric=metric_name,
            score=float(result.score),
            ci_low=float(interval.low),
            ci_high=float(interval.high),
            extras=_jsonable(result.extras),
            replicates_file="",
            rater_ci_low=None,
            rater_ci_high=None,
            **files[metric_name],
        )
        for metric_name, (result, interval) in values.items()
    ]

    def write_scores() -> None:
        # One upsert for all the metrics (a rescoring replaces its signatures' rows in place).
        Score.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["submission", "signature"],
            update_fields=SCORE_VALUES,
        )

    run_succeed(run, {"scores": len(values)}, write=write_scores)
    # After the run's final transaction (which made the submission an entry of its board).
    leaderboard_rank_groups_store(leaderboard_id=submission.leaderboard_id)
    return None
