"""The kind of long work studies run through the run engine: a correlation study."""

from __future__ import annotations

from datetime import timedelta

from core.runs.kinds import HEAVY_QUEUE, RunKind, register_kind
from scoring.metrics import MetricInputError
from scoring.study.analysis.data import StudyInputError
from scoring.study.services import STUDY_KIND, study_run


def register() -> None:
    # Input the study cannot use fails at once with its reason: another attempt reads the same
    # input. (Options are checked when the study is made; this is for what only the data shows.)
    register_kind(
        RunKind(
            name=STUDY_KIND,
            body=study_run,
            weight=HEAVY_QUEUE,
            grace=timedelta(seconds=90),
            refusals=(MetricInputError, StudyInputError),
        )
    )
