"""Celery tasks for mining: each takes a job id and runs one service as the job's body."""

from __future__ import annotations

from contextlib import suppress

from celery import shared_task

from annotate.selectors.mining import CORPUS_INDEX_KIND, MINING_KIND
from annotate.services.corpora import CorpusInvalid, corpus_index_job
from annotate.services.jobs import job_register_task, job_run
from annotate.services.mining import mining_run

MINING_TASK = "annotate.tasks.mine"
CORPUS_INDEX_TASK = "annotate.tasks.corpus_index"


@shared_task(name=MINING_TASK)
def mining_task(job_id: int) -> None:
    job_run(job_id=job_id, work=mining_run)


@shared_task(name=CORPUS_INDEX_TASK)
def corpus_index_task(job_id: int) -> None:
    # A refused corpus is recorded on the job and the corpus: the owner fixes the file, and
    # there is nothing to retry.
    with suppress(CorpusInvalid):
        job_run(job_id=job_id, work=corpus_index_job)


job_register_task(MINING_KIND, MINING_TASK)
job_register_task(CORPUS_INDEX_KIND, CORPUS_INDEX_TASK)
