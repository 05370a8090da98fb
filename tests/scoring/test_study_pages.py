"""Correlation study pages and API: who may see what, a run through the service, exports."""

import pytest

from scoring.study.models import CorrelationStudy
from tests.scoring.study_kit import finished_study, study_inputs, study_release_items
from tests.scoring.world_kit import shared_scoring_world

pytestmark = pytest.mark.django_db


def _finished_study(owner):
    return finished_study(owner, name="Table 2")


# Built once for the module: each test reads the rows again in a transaction of its own.
shared, world, study = shared_scoring_world(_finished_study, "study")


def test_study_result_has_table_and_sweeps(study):
    assert len(study.result["table"]) == 9
    assert study.result["pairs"][0]["items"] == 12
    assert set(study.result["sweeps"]) == {"theta", "order", "unit_size"}


@pytest.mark.parametrize(
    "path", ["/studies/{}/", "/studies/{}/export.csv", "/studies/{}/export.json"]
)
def test_only_the_owner_sees_a_study(study, client_for, owner, other, staff, path):
    url = path.format(study.pk)
    assert client_for(owner).get(url).status_code == 200
    assert client_for(staff).get(url).status_code == 200
    assert client_for(other).get(url).status_code == 404
    assert client_for(None).get(url).status_code == 302  # to the login page


def test_study_page_shows_table_and_plots(study, client_for, owner):
    page = client_for(owner).get(f"/studies/{study.pk}/").content.decode()
    assert 'id="study-table"' in page and "ΔBLEU" in page
    # 3 sweeps (a line per metric), and a scatter plot per metric of the system level
    assert page.count("data-chart ") == 3 + 3 and "<svg" not in page
    assert 'class="grid system-table"' in page and "Pearson r" in page
    csv = client_for(owner).get(f"/studies/{study.pk}/export.csv").content.decode()
    assert csv.startswith("criterion,metric,refs,order,rho")


def test_every_number_names_its_metric_with_the_order_and_signature(study, client_for, owner):
    """A study's BLEU is BLEU-2 (the paper's), a board's BLEU-4: the tables, the system level
    and the export say which, with the signature that reproduces the number."""
    row = next(r for r in study.result["table"] if r["metric"] == "bleu" and r["refs"] == "all")
    assert row["label"] == "BLEU-2"
    assert row["signature"] == (
        "bleu|order:2|tok:13a|case:mixed|smooth:exp|reflen:closest|nrefs:all|version:0.2.0"
    )
    correlation = study.result["systems"]["relevance"]["correlations"][0]
    assert correlation["label"].endswith("-2") and "|order:2|" in correlation["signature"]
    page = client_for(owner).get(f"/studies/{study.pk}/").content.decode()
    assert "<td>BLEU-2<br>" in page and row["signature"] in page
    csv = client_for(owner).get(f"/studies/{study.pk}/export.csv").content.decode()
    assert csv.splitlines()[0].endswith(",signature") and row["signature"] in csv


def test_list_page_starts_a_study_for_the_owner_only(
    owner, other, client_for, make_release, django_capture_on_commit_callbacks
):
    # A release of its own, apart from the module's study.
    release = make_release(slug="mine", items=study_release_items(), public_splits=("test",))
    judgments = study_inputs(owner, release)
    form = {
        "name": "Mine",
        "release": release.pk,
        "split": "test",
        "judgment_set": judgments.pk,
        "unit_size": 3,
        "assignments": 10,
        "theta": 0.6,
        "order": 4,
    }
    assert client_for(None).get("/studies/").status_code == 302
    refused = client_for(other).post("/studies/", form)
    assert refused.status_code == 200 and not CorrelationStudy.objects.filter(name="Mine").exists()
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(owner).post("/studies/", form)
    study = CorrelationStudy.objects.get(name="Mine")
    assert response.url == f"/studies/{study.pk}/"
    assert study.run.kind == "correlation-study" and study.run.state == "queued"
    assert study.options["order"] == 4  # the n-gram order is a field of the form
