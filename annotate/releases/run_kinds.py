"""The kind of long work releases run through the run engine: building a release's archive."""

from __future__ import annotations

from annotate.releases.services.archive import JOB_KIND as RELEASE_ARCHIVE_KIND
from annotate.releases.services.archive import release_archive_build
from core.runs.kinds import HEAVY_QUEUE, RunKind, register_kind


def register() -> None:
    register_kind(
        RunKind(name=RELEASE_ARCHIVE_KIND, body=release_archive_build, weight=HEAVY_QUEUE)
    )
