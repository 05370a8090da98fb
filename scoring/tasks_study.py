"""The correlation study's Celery task: a job id in, `study_run` as the job's body."""

from __future__ import annotations

from celery import shared_task

from annotate.services.jobs import job_register_task, job_run

STUDY_TASK = "scoring.tasks.correlation_study"


@shared_task(name=STUDY_TASK, time_limit=3600)
def correlation_study_task(job_id: int) -> None:
    from scoring.services.study import study_run

    job_run(job_id=job_id, work=study_run)


job_register_task("correlation-study", STUDY_TASK)
