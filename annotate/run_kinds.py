"""The kinds of long work the annotation side runs through the run engine."""

from __future__ import annotations

from datetime import timedelta

from annotate.selectors.mining import CORPUS_INDEX_KIND, MINING_KIND
from annotate.services.corpora import CorpusInvalid, corpus_index_job
from annotate.services.mining import mining_run
from annotate.services.releases.archive import JOB_KIND as RELEASE_ARCHIVE_KIND
from annotate.services.releases.archive import release_archive_build
from core.runs.kinds import HEAVY_QUEUE, RunKind, register_kind


def register() -> None:
    register_kind(RunKind(name=MINING_KIND, body=mining_run, weight=HEAVY_QUEUE))
    # A refused corpus is recorded on the corpus: the owner fixes the file; no retry helps.
    register_kind(
        RunKind(
            name=CORPUS_INDEX_KIND,
            body=corpus_index_job,
            weight=HEAVY_QUEUE,
            refusals=(CorpusInvalid,),
            grace=timedelta(seconds=90),
        )
    )
    register_kind(
        RunKind(name=RELEASE_ARCHIVE_KIND, body=release_archive_build, weight=HEAVY_QUEUE)
    )
