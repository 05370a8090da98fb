"""Correlation study REST API: start, follow, export; only the owner (or staff) sees a study."""

import pytest

from scoring.study.models import CorrelationStudy
from tests.runs_kit import execute
from tests.scoring.study_kit import STUDY_OPTIONS, study_inputs, study_release_items

pytestmark = pytest.mark.django_db


@pytest.fixture
def inputs(owner, make_release):
    release = make_release(items=study_release_items(), public_splits=("test",))
    return release, study_inputs(owner, release)


def _body(release, judgments, **extra):
    return {
        "name": "API study",
        "release": release.pk,
        "split": "test",
        "judgment_set": judgments.pk,
        "options": STUDY_OPTIONS,
        **extra,
    }


@pytest.fixture
def started(inputs, owner, client_for, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(owner).post("/api/v1/studies/", _body(*inputs), format="json")
    assert response.status_code == 201, response.json()
    return CorrelationStudy.objects.get(pk=response.json()["id"])


def test_it_starts_a_study_as_a_run(started, owner, client_for):
    assert started.run.kind == "correlation-study" and started.owner == owner
    assert (started.run.scope, started.run.owner) == (f"study:{started.pk}", owner)
    assert (
        started.options["unit_size"] == 3 and started.options["metrics"] == STUDY_OPTIONS["metrics"]
    )
    detail = client_for(owner).get(f"/api/v1/studies/{started.pk}/").json()
    assert detail["status"] == "queued" and detail["percent"] == 0 and detail["result"] == {}
    listed = client_for(owner).get("/api/v1/studies/").json()["results"]
    assert [s["id"] for s in listed] == [started.pk]


def test_a_finished_study_has_results_and_exports(started, owner, client_for):
    assert execute(started.run).state == "succeeded"
    detail = client_for(owner).get(f"/api/v1/studies/{started.pk}/").json()
    assert (detail["status"], detail["percent"]) == ("succeeded", 100)
    assert len(detail["result"]["table"]) == 9
    csv = client_for(owner).get(f"/api/v1/studies/{started.pk}/export.csv")
    assert csv.status_code == 200
    assert csv.content.decode().startswith("criterion,metric,refs,order,rho")
    js = client_for(owner).get(f"/api/v1/studies/{started.pk}/export.json").json()
    assert js["study"] == started.pk and js["result"]["table"]
    assert client_for(owner).get(f"/api/v1/studies/{started.pk}/export.xml").status_code == 404


@pytest.mark.parametrize(
    "path",
    ["/api/v1/studies/{}/", "/api/v1/studies/{}/export.csv", "/api/v1/studies/{}/export.json"],
)
def test_only_the_owner_and_staff_see_a_study(
    started, client_for, owner, other, staff, rater, path
):
    url = path.format(started.pk)
    assert client_for(owner).get(url).status_code == 200
    assert client_for(staff).get(url).status_code == 200
    assert client_for(other).get(url).status_code == 404
    assert client_for(rater).get(url).status_code == 404
    assert client_for(None).get(url).status_code in (401, 403)


def test_others_see_an_empty_list_and_anonymous_is_refused(started, client_for, other):
    assert client_for(other).get("/api/v1/studies/").json()["results"] == []
    assert client_for(None).get("/api/v1/studies/").status_code in (401, 403)


def test_others_cannot_start_a_study_on_the_owners_release(inputs, other, client_for):
    response = client_for(other).post("/api/v1/studies/", _body(*inputs), format="json")
    assert response.status_code == 400
    assert set(response.json()) >= {"release", "judgment_set"}
    assert not CorrelationStudy.objects.exists()


def test_it_needs_exactly_one_source_of_human_scores(inputs, owner, client_for):
    release, _ = inputs
    body = _body(release, inputs[1], judgment_set=None)
    response = client_for(owner).post("/api/v1/studies/", body, format="json")
    assert response.status_code == 400 and "one source" in str(response.json())


def test_it_validates_options(inputs, owner, client_for):
    body = _body(*inputs, options={"unit_size": 0})
    response = client_for(owner).post("/api/v1/studies/", body, format="json")
    assert response.status_code == 400 and "unit_size" in response.json()["options"]


def test_an_unknown_metric_is_refused_with_the_valid_names_and_no_study(inputs, owner, client_for):
    body = _body(*inputs, options={**STUDY_OPTIONS, "metrics": ["bleu", "nosuch"]})
    response = client_for(owner).post("/api/v1/studies/", body, format="json")
    assert response.status_code == 400
    (message,) = response.json()["options"]["metrics"]
    assert message.startswith("No metric 'nosuch': choose from bleu, dbleu, ")
    assert not CorrelationStudy.objects.exists()


def test_thresholds_outside_the_weights_range_are_refused(inputs, owner, client_for):
    # A reference's weight is in [-1, 1]: θ = 5 kept no reference, and the study "succeeded".
    body = _body(*inputs, options={**STUDY_OPTIONS, "thetas": [5.0, -7.0]})
    response = client_for(owner).post("/api/v1/studies/", body, format="json")
    assert response.status_code == 400 and "thetas" in response.json()["options"]
    assert not CorrelationStudy.objects.exists()


def test_a_stored_study_naming_an_unknown_metric_fails_once_without_retries(
    started, owner, client_for
):
    # A study made before its metrics were checked, or a metric since unregistered: the run
    # refuses at once (failed, not retried), its reason the library's.
    CorrelationStudy.objects.filter(pk=started.pk).update(
        options={**STUDY_OPTIONS, "metrics": ["nosuch"]}
    )
    run = execute(started.run)
    assert (run.state, run.attempt, run.refused) == ("failed", 1, True)
    assert "unknown metric 'nosuch'" in run.reason


def test_a_study_made_without_options_runs_and_its_page_shows_the_default_unit_size(
    inputs, owner, client_for, django_capture_on_commit_callbacks
):
    """`options` is optional in the API: the page read `study.options.unit_size` as a filter's
    argument and answered 500 when it was absent."""
    body = {k: v for k, v in _body(*inputs).items() if k != "options"}
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(owner).post("/api/v1/studies/", body, format="json")
    assert response.status_code == 201, response.json()
    study = CorrelationStudy.objects.get(pk=response.json()["id"])
    assert study.options == {}
    page = client_for(owner).get(f"/studies/{study.pk}/")
    assert page.status_code == 200  # queued: no result yet
    assert execute(study.run).state == "succeeded"
    study.refresh_from_db()
    page = client_for(owner).get(f"/studies/{study.pk}/")
    assert page.status_code == 200
    assert "items per assignment" in page.content.decode()
    assert f"M = {study.result['unit_size']} items" in page.content.decode()


def test_a_study_on_a_split_nobody_judged_fails_with_its_reason(
    inputs, owner, client_for, django_capture_on_commit_callbacks
):
    """The judgments are on the test split: a study of the dev split has nothing to correlate
    and says so, instead of 'succeeded' with an empty result."""
    release, judgments = inputs
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(owner).post(
            "/api/v1/studies/", _body(release, judgments, split="dev"), format="json"
        )
    assert response.status_code == 201, response.json()
    study = CorrelationStudy.objects.get(pk=response.json()["id"])
    run = execute(study.run)
    assert (run.state, run.refused) == ("failed", True), run.reason
    assert "No pair of systems" in run.reason or "has a human score" in run.reason
    study.refresh_from_db()
    assert study.result == {}
    page = client_for(owner).get(f"/studies/{study.pk}/")
    assert page.status_code == 200 and run.reason in page.content.decode()
    detail = client_for(owner).get(f"/api/v1/studies/{study.pk}/").json()
    assert detail["status"] == "failed"


def test_a_study_whose_split_has_outputs_but_no_judgments_says_which_split_was_judged(
    owner, make_release
):
    from annotate.judgments.services.systems import eval_system_set_outputs
    from scoring.study.services import study_create
    from tests.scoring.study_kit import WORDS

    dev = [("dev", f"d{i}", [(WORDS[i % 3], 0.9), ("noise words", -0.8)]) for i in range(6)]
    release = make_release(items=study_release_items() + dev, public_splits=("test", "dev"))
    judgments = study_inputs(owner, release)  # outputs and judgments on the test split
    for name in ("good", "mid", "bad"):
        outputs = [(f"d{i}", WORDS[i % 3]) for i in range(6)]
        eval_system_set_outputs(dataset=release.dataset, name=name, split="dev", outputs=outputs)
    study = study_create(
        owner=owner, name="dev", release=release, split="dev", judgment_set=judgments
    )
    run = execute(study.run)
    assert (run.state, run.refused) == ("failed", True)
    assert run.reason == (
        "None of the 6 items of the dev split has a human score in human (its judgments are on "
        "the test split): choose the split that was judged."
    )
