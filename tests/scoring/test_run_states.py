"""Studies and submissions say their runs' states in the runs' words (queued, running,
succeeded, failed, cancelled) on pages and in the API, and a queued one says why it waits."""

import json

import pytest
from django.urls import reverse

from scoring.leaderboards.models import Submission
from scoring.study.models import CorrelationStudy
from tests.runs_kit import execute, live_workers, waited
from tests.scoring.study_kit import STUDY_OPTIONS, study_inputs, study_release_items
from tests.scoring.test_submission_api import post

pytestmark = pytest.mark.django_db


@pytest.fixture
def submission(make_leaderboard, client_for, other, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        body = post(client_for(other), make_leaderboard()).json()
    return Submission.objects.get(pk=body["id"])


@pytest.fixture
def study(owner, make_release, client_for, django_capture_on_commit_callbacks):
    release = make_release(items=study_release_items(), public_splits=("test",))
    judgments = study_inputs(owner, release)
    body = {
        "name": "States",
        "release": release.pk,
        "split": "test",
        "judgment_set": judgments.pk,
        "options": STUDY_OPTIONS,
    }
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(owner).post("/api/v1/studies/", body, format="json")
    return CorrelationStudy.objects.get(pk=response.json()["id"])


def test_a_scored_submission_has_succeeded_like_its_run(submission, client_for, other):
    execute(submission.run_id)
    client = client_for(other)
    body = client.get(f"/api/v1/submissions/{submission.pk}/").json()
    run = client.get(f"/api/v1/runs/{submission.run_id}/").json()
    assert body["state"] == run["state"] == "succeeded"
    assert body["status"] == "finished"  # deprecated, kept for clients that read it
    listed = client.get(f"/api/v1/leaderboards/{submission.leaderboard.slug}/submissions/").json()
    assert [s["state"] for s in listed["results"]] == ["succeeded"]
    for page in (
        reverse("submission-detail", args=[submission.pk]),
        reverse("leaderboard-detail", args=[submission.leaderboard.slug]),
        reverse("submission-new", args=[submission.leaderboard.slug]),
    ):
        text = client.get(page).content.decode()
        assert "Succeeded" in text and "Finished" not in text, page


def test_the_schema_names_the_states_and_deprecates_the_old_field(client):
    schema = client.get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]
    states = ["queued", "running", "succeeded", "failed", "cancelled"]
    assert components["RunStateEnum"]["enum"] == states
    fields = components["Submission"]["properties"]
    assert fields["status"]["deprecated"] is True and "finished" in fields["status"]["description"]
    assert '"#/components/schemas/SubmissionStatusEnum"' in json.dumps(fields["status"])
    for name in ("Submission", "StudySummary", "StudyDetail", "Run"):
        state = json.dumps(components[name]["properties"]["state"])
        assert '"#/components/schemas/RunStateEnum"' in state, name


def test_a_submission_waiting_for_a_heavy_worker_says_so(submission, client_for, other, settings):
    live_workers([settings.CELERY_TASK_DEFAULT_QUEUE])  # Celery's plain command
    waited(submission.run_id)
    client = client_for(other)
    body = client.get(f"/api/v1/submissions/{submission.pk}/").json()
    assert body["state"] == "queued"
    assert body["waiting_reason"].startswith("No running worker takes heavy work")
    assert settings.CELERY_HEAVY_QUEUE in body["waiting_reason"]
    page = client.get(reverse("submission-detail", args=[submission.pk])).content.decode()
    assert body["waiting_reason"] in page


def test_a_submission_the_broker_never_accepted_says_so(submission, client_for, other):
    from datetime import timedelta

    from django.utils import timezone

    from core.runs.models import Run

    ago = timezone.now() - timedelta(minutes=1)
    Run.objects.filter(pk=submission.run_id).update(created_at=ago, dispatched_at=None)
    client = client_for(other)
    page = client.get(reverse("submission-detail", args=[submission.pk]))
    assert page.status_code == 200 and "The broker has not accepted it yet" in page.text
    body = client.get(f"/api/v1/submissions/{submission.pk}/")
    assert body.status_code == 200
    assert body.json()["waiting_reason"].startswith("The broker has not accepted it yet")


def test_a_study_says_its_state_like_its_run_and_why_it_waits(study, client_for, owner, settings):
    live_workers([settings.CELERY_TASK_DEFAULT_QUEUE])
    waited(study.run_id)
    client = client_for(owner)
    detail = client.get(f"/api/v1/studies/{study.pk}/").json()
    assert detail["state"] == detail["status"] == "queued"
    assert detail["waiting_reason"].startswith("No running worker takes heavy work")
    listed = client.get("/api/v1/studies/").json()["results"][0]
    assert listed["waiting_reason"] == detail["waiting_reason"]
    page = client.get(reverse("study-detail", args=[study.pk])).content.decode()
    assert "No running worker takes heavy work" in page

    live_workers([settings.CELERY_HEAVY_QUEUE])  # a heavy worker is running now
    assert client.get(f"/api/v1/studies/{study.pk}/").json()["waiting_reason"] == ""
    execute(study.run_id)
    detail = client.get(f"/api/v1/studies/{study.pk}/").json()
    run = client.get(f"/api/v1/runs/{study.run_id}/").json()
    assert detail["state"] == run["state"] == "succeeded"
    page = client.get(reverse("study-detail", args=[study.pk])).content.decode()
    assert "Succeeded" in page and "No running worker" not in page


@pytest.mark.parametrize(
    "answer, state",
    [
        ({"state": "succeeded", "status": "finished"}, "succeeded"),
        ({"status": "finished"}, "succeeded"),  # a server older than `state`
        ({"status": "queued"}, "queued"),
        ({"state": "failed", "status": "failed"}, "failed"),
    ],
)
def test_the_participant_client_reads_the_state_from_new_and_old_servers(answer, state):
    from scoring.leaderboards.client import _state

    assert _state(answer) == state
