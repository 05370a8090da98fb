"""Jobs: claimed once, progress, cancel, failure, requeue of silent jobs, and who sees them."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotate.models import Job, JobStatus
from annotate.services.jobs import (
    JobCancelled,
    job_cancel,
    job_create,
    job_progress,
    job_register_task,
    job_requeue_stale,
    job_run,
    job_start,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def job(owner):
    return job_create(kind="mining", owner=owner)


def test_a_job_is_claimed_once(job):
    assert job_start(job_id=job.pk, total=10)
    assert not job_start(job_id=job.pk, total=10)


def test_job_run_records_progress_and_result(job):
    def work(current):
        for done in range(1, 5):
            job_progress(job_id=current.pk, done=done, total=4)
        return {"made": 4}

    job_run(job_id=job.pk, work=work)
    job.refresh_from_db()
    assert (job.status, job.percent, job.result) == (JobStatus.FINISHED, 100, {"made": 4})
    assert job.started_at <= job.finished_at


def test_job_run_does_not_run_a_job_twice(job):
    calls = []
    job_run(job_id=job.pk, work=lambda j: calls.append(1) or {})
    job_run(job_id=job.pk, work=lambda j: calls.append(1) or {})
    assert calls == [1]


def test_a_failure_is_recorded_with_its_message(job):
    def work(current):
        raise ValueError("corpus file is gone")

    with pytest.raises(ValueError):
        job_run(job_id=job.pk, work=work)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.message == "ValueError: corpus file is gone"


def test_a_running_job_stops_at_its_next_progress_report(job):
    def work(current):
        job_progress(job_id=current.pk, done=1, total=3)
        job_cancel(job=current)
        job_progress(job_id=current.pk, done=2, total=3)
        raise AssertionError("not reached")

    job_run(job_id=job.pk, work=work)
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED and job.done == 1


def test_a_queued_job_is_cancelled_at_once(job):
    job_cancel(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED
    assert not job_start(job_id=job.pk)


def test_progress_outside_a_job_raises_nothing_when_not_cancelled(job):
    job_start(job_id=job.pk)
    job_progress(job_id=job.pk, done=3, total=6, message="half")
    job.refresh_from_db()
    assert (job.percent, job.message) == (50, "half")
    with pytest.raises(JobCancelled):
        Job.objects.filter(pk=job.pk).update(cancel_requested=True)
        job_progress(job_id=job.pk, done=4)


def test_silent_running_jobs_are_requeued(job, owner):
    job_register_task("mining", "annotate.tasks.mine")
    job_start(job_id=job.pk)
    fresh = job_create(kind="mining", owner=owner)
    job_start(job_id=fresh.pk)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    sent = []
    n = job_requeue_stale(older_than=timedelta(minutes=10), send=lambda *a: sent.append(a))
    assert n == 1 and sent == [("annotate.tasks.mine", job.pk)]
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED
    assert job_start(job_id=job.pk)  # the requeued task can claim it again


@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("other", 404), ("anonymous", 403), ("staff", 200)]
)
def test_a_job_is_visible_to_its_owner(job, client_for, who, status, request):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = client_for(user).get(f"/api/v1/jobs/{job.pk}/")
    assert response.status_code == status
    if status == 200:
        assert response.json()["status"] == "queued"


@pytest.mark.parametrize("who, status", [("owner", 200), ("other", 404), ("anonymous", 403)])
def test_only_the_owner_cancels(job, client_for, who, status, request):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = client_for(user).post(f"/api/v1/jobs/{job.pk}/cancel/")
    assert response.status_code == status
    job.refresh_from_db()
    assert (job.status == JobStatus.CANCELLED) == (status == 200)
