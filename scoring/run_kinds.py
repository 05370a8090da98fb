"""The kinds of long work the scoring side runs through the run engine."""

from __future__ import annotations

from datetime import timedelta

from core.runs.kinds import HEAVY_QUEUE, RunKind, register_kind
from scoring.metrics import MetricInputError
from scoring.services.scoring import SCORING_KIND, scoring_run
from scoring.services.study import STUDY_KIND, study_run
from scoring.services.submissions import submission_run_ended, submission_run_started
from scoring.submission_files import UploadRejected


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
        RunKind(name=STUDY_KIND, body=study_run, weight=HEAVY_QUEUE, grace=timedelta(seconds=90))
    )
