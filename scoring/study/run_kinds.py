"""The kind of long work studies run through the run engine: a correlation study."""

from __future__ import annotations

from datetime import timedelta

from core.runs.kinds import HEAVY_QUEUE, RunKind, register_kind
from scoring.study.services import STUDY_KIND, study_run


def register() -> None:
    register_kind(
        RunKind(name=STUDY_KIND, body=study_run, weight=HEAVY_QUEUE, grace=timedelta(seconds=90))
    )
