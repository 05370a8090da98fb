"""The kinds of long work leaderboards run through the run engine: scoring a submission, then
its bootstrap replicates (the interval with rater uncertainty, the board's rank grid)."""

from __future__ import annotations

from core.runs.kinds import HEAVY_QUEUE, RunKind, register_kind
from scoring.leaderboards.services.scoring import SCORING_KIND, scoring_run
from scoring.leaderboards.services.submissions import (
    submission_run_ended,
    submission_run_started,
)
from scoring.leaderboards.services.uncertainty import (
    REPLICATES_KIND,
    replicates_run,
    replicates_run_ended,
)
from scoring.leaderboards.submission_files import UploadRejected
from scoring.metrics import MetricInputError


def register() -> None:
    register_kind(
        RunKind(
            name=SCORING_KIND,
            body=scoring_run,
            weight=HEAVY_QUEUE,
            refusals=(MetricInputError, UploadRejected),
            on_start=submission_run_started,
            on_end=submission_run_ended,
        )
    )
    register_kind(
        RunKind(
            name=REPLICATES_KIND,
            body=replicates_run,
            weight=HEAVY_QUEUE,
            on_end=replicates_run_ended,
        )
    )
