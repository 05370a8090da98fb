"""A study whose coefficients are undefined (humans gave every output the same score) stores
null with a note, shows "undefined", and exports — never a database error (PostgreSQL's jsonb
refuses NaN)."""

import json

import numpy as np
import pytest

from core.strict_json import json_safe
from scoring.study.models import CorrelationStudy
from tests.runs_kit import execute
from tests.scoring.study_kit import (
    judgments_on_test_split,
    study_inputs,
    study_on_test_split,
    study_release_items,
)

pytestmark = pytest.mark.django_db


def test_json_safe_turns_nan_inf_and_numpy_into_plain_json():
    value, undefined = json_safe(
        {"a": float("nan"), "b": [np.float64(1.5), np.inf, (np.int64(2), -np.inf)], "c": "x"}
    )
    assert value == {"a": None, "b": [1.5, None, [2, None]], "c": "x"} and undefined == 3
    json.dumps(value, allow_nan=False)


@pytest.fixture
def study(owner, make_release, django_capture_on_commit_callbacks):
    release = make_release(items=study_release_items(), public_splits=("test",))
    study_inputs(owner, release)  # the systems' outputs
    lines = [
        json.dumps({"judge": f"j{k}", "id": f"t{i}", "system": name, "scores": {"relevance": 3}})
        for name in ("good", "mid", "bad")
        for i in range(12)
        for k in range(2)
    ]
    flat = judgments_on_test_split(owner, release.dataset, lines, name="flat")
    with django_capture_on_commit_callbacks(execute=False):
        return study_on_test_split(owner, release, flat, name="flat")


def test_undefined_coefficients_are_stored_as_null_with_a_warning(study, owner, client_for):
    """Constant human scores: every correlation is undefined, and the page warns at its top."""
    assert execute(study.run).state == "succeeded"
    result = CorrelationStudy.objects.get(pk=study.pk).result
    assert result["table"] and all(row["rho"]["value"] is None for row in result["table"])
    assert any("undefined" in warning for warning in result["warnings"])
    client = client_for(owner)
    page = client.get(f"/studies/{study.pk}/").content.decode()
    assert 'id="study-warnings"' in page and "undefined" in page
    assert (
        client.get(f"/api/v1/studies/{study.pk}/").json()["result"]["table"][0]["rho"]["value"]
        is None
    )
    assert client.get(f"/api/v1/studies/{study.pk}/export.csv").status_code == 200
    assert client.get(f"/studies/{study.pk}/export.json").status_code == 200
