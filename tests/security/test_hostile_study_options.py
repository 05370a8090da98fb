"""Every option of a correlation study, given a hostile value in an otherwise valid request,
never answers 500, and a study the API accepts runs to an end its owner can read: it succeeds,
or fails at once with its reason (never a crash retried by the engine). The hostile API test
sends each top-level field alone, so it never reaches a study's options, nor its run."""

from __future__ import annotations

import json

import pytest

from scoring.study.api import StudyOptionsInputSerializer
from scoring.study.models import CorrelationStudy
from tests.runs_kit import execute
from tests.scoring.study_kit import study_inputs, study_release_items
from tests.security.test_hostile_api import HOSTILE

pytestmark = pytest.mark.slow  # a couple of hundred requests and a few studies run

# Values past the hostile API test's: edges of each option's meaning.
EDGES = (0, -(2**63), 2**64, float("nan"), float("inf"), "1e999", [0.6] * 51, ["dbleu"] * 51)


def test_no_study_option_answers_500_and_every_accepted_study_ends(
    owner, make_release, client_for, django_capture_on_commit_callbacks
):
    release = make_release(items=study_release_items(), public_splits=("test",))
    judgments = study_inputs(owner, release)
    client = client_for(owner)
    accepted, crashed = [], []
    for name in StudyOptionsInputSerializer().fields:
        for value in (*HOSTILE, *EDGES):
            body = {
                "name": "hostile",
                "release": release.pk,
                "split": "test",
                "judgment_set": judgments.pk,
                "options": {"assignments": 5, "bootstrap": 5, "sweeps": False, name: value},
            }
            # Raw JSON, NaN and Infinity included (Python writes them; a strict parser refuses).
            raw = json.dumps(body)
            with django_capture_on_commit_callbacks(execute=False):
                response = client.post("/api/v1/studies/", raw, content_type="application/json")
            if response.status_code >= 500:
                crashed.append(f"{name}={value!r:.30}")
            elif response.status_code == 201:
                accepted.append((name, value, response.json()["id"]))
            else:
                assert response.status_code == 400, (name, value, response.status_code)
                assert name in response.content.decode(), (name, value, response.content[:300])
    assert crashed == []
    assert accepted  # the walk reached valid bodies too (True for sweeps, 0 for seed, …)
    for name, value, pk in accepted:
        study = CorrelationStudy.objects.get(pk=pk)
        run = execute(study.run)
        assert run.state == "succeeded" or (run.state == "failed" and run.refused), (
            name,
            value,
            run.state,
            run.reason,
        )
        assert client.get(f"/studies/{pk}/").status_code == 200, (name, value)
        assert client.get(f"/api/v1/studies/{pk}/export.csv").status_code == 200, (name, value)
