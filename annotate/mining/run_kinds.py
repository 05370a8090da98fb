"""The kinds of long work mining runs through the run engine: a mining run and a corpus index."""

from __future__ import annotations

from datetime import timedelta

from annotate.mining.selectors import CORPUS_INDEX_KIND, MINING_KIND
from annotate.mining.services.corpora import CorpusInvalid, corpus_index_job
from annotate.mining.services.mining import mining_run
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
