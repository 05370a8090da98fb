"""A judgment set's summary page, CSV and API: each system's mean over every judged item (one
without references included), the judges' agreement or why there is none, the import's report,
and who may see them — exactly who may see the import."""

import csv
import io

import pytest

from annotate.judgments.models import JudgmentSet
from annotate.judgments.services.importing import bundle_parse, judgments_import
from annotate.judgments.summary_exports import NO_INDIVIDUAL
from tests.annotate.test_judgment_summary_math import ROWS

pytestmark = pytest.mark.django_db

# References for i1–i3 only: i4 is judged but has none (a study's means would leave it out).
REFERENCES = "id\tref1\ni1\tyes indeed\ni2\tno thanks\ni3\tmaybe later\n"
CONTEXTS = "id\tdepth\tcontext\n" + "".join(f"i{k}\t1\thello {k}\n" for k in range(1, 5))


def _tsv(rows) -> bytes:
    lines = "".join(f"{j}\t{item}\t{system}\t{score}\n" for j, item, system, _, score in rows)
    return f"judge\tid\tsystem\trel\n{lines}".encode()


def _import(dataset, owner, rows=ROWS, name="he", contexts=CONTEXTS):
    bundle = bundle_parse(
        judgments=("j.tsv", _tsv(rows)),
        references=("r.tsv", REFERENCES.encode()),
        contexts=("c.tsv", contexts.encode()),
    )
    return judgments_import(dataset=dataset, owner=owner, name=name, split="test", bundle=bundle)


@pytest.fixture
def judged(make_dataset, owner):
    return _import(make_dataset(slug="he", data=None), owner)


def test_the_api_gives_each_systems_mean_over_every_judged_item(judged, owner, client_for):
    assert judged.report["items_without_references"]["ids"] == ["i4"]
    body = client_for(owner).get(f"/api/v1/judgments/{judged.pk}/summary/").json()
    assert [s["system"] for s in body["systems"]] == ["A", "B"]
    a, b = (s["scores"][0] for s in body["systems"])
    assert (a["criterion"], a["mean"], a["items"], a["judgments"]) == ("rel", 3.5, 4, 7)
    assert (b["mean"], b["items"], b["judgments"]) == (3.125, 4, 8)
    assert a["low"] <= a["mean"] <= a["high"]
    assert (body["items"], body["judgments"], body["criteria"]) == (4, 15, ["rel"])
    assert body["interval"] == {"level": 0.95, "draws": 1000, "seed": 41}
    assert body["agreement"]["available"] and body["agreement"]["note"] == ""
    [rel] = body["agreement"]["criteria"]
    assert rel["criterion"] == "rel" and rel["units"] == 6 and rel["judges"] == 3
    assert body["report"]["judgments"] == 15 and body["dataset"] == "he"
    again = client_for(owner).get(f"/api/v1/judgments/{judged.pk}/summary/").json()
    assert again == body  # seeded: the same intervals every time


def test_a_set_of_aggregated_scores_says_agreement_is_not_available(
    make_dataset, owner, client_for
):
    rows = [("avg", f"i{k}", s, "rel", 1 + (k + (s == "A")) % 5) for k in range(1, 5) for s in "AB"]
    without_i4 = CONTEXTS.replace("i4\t1\thello 4\n", "")
    aggregated = _import(make_dataset(slug="he", data=None), owner, rows=rows, contexts=without_i4)
    body = client_for(owner).get(f"/api/v1/judgments/{aggregated.pk}/summary/").json()
    assert body["agreement"] == {"available": False, "note": NO_INDIVIDUAL, "criteria": []}
    page = client_for(owner).get(f"/judgments/{aggregated.pk}/summary/")
    html = page.content.decode()
    assert "Individual judgments not available" in html and 'id="judgment-agreement"' not in html
    assert "1 warning." in html  # the import's report, its warning by file
    assert "warning · j.tsv: item &#x27;i4&#x27; is in no context file" in html


def test_the_page_shows_the_table_the_chart_agreement_and_the_report(judged, owner, client_for):
    page = client_for(owner).get(f"/judgments/{judged.pk}/summary/")
    html = page.content.decode()
    assert page.status_code == 200 and 'id="judgment-means"' in html
    assert html.index("<td>A</td>") < html.index("<td>B</td>")
    assert "<td>3.500</td>" in html and "<td>4 · 7</td>" in html and "<td>3.125</td>" in html
    assert 'id="judgment-agreement"' in html and "Krippendorff" in html
    assert "with or without references" in html and 'class="chart' in html
    assert "1 judged item without references, counted in the means above: i4." in html
    assert "0 rows skipped, " in html
    assert f"/judgments/{judged.pk}/summary.csv" in html


def test_the_csv_export_is_the_table(judged, owner, client_for):
    response = client_for(owner).get(f"/judgments/{judged.pk}/summary.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert f"judgments-{judged.pk}-summary.csv" in response["Content-Disposition"]
    header, *lines = csv.reader(io.StringIO(response.content.decode()))
    assert header[:3] == ["system", "criterion", "mean"]
    assert [line[:3] for line in lines] == [["A", "rel", "3.5000"], ["B", "rel", "3.1250"]]


def test_the_import_and_the_dataset_page_link_to_the_summary(judged, owner, client_for):
    summary = f"/judgments/{judged.pk}/summary/"
    assert summary in client_for(owner).get(f"/judgments/{judged.pk}/").content.decode()
    assert summary in client_for(owner).get("/datasets/he/").content.decode()


def test_a_set_without_judgments_or_report_is_summarised_as_empty(make_dataset, owner, client_for):
    bare = JudgmentSet.objects.create(dataset=make_dataset(slug="he", data=None), owner=owner)
    client = client_for(owner)
    body = client.get(f"/api/v1/judgments/{bare.pk}/summary/").json()
    assert (body["systems"], body["items"], body["report"]["judgments"]) == ([], 0, 0)
    assert "holds no judgments" in client.get(f"/judgments/{bare.pk}/summary/").content.decode()
    csv_body = client.get(f"/judgments/{bare.pk}/summary.csv").content.decode()
    assert csv_body.strip() == "system,criterion,mean,low,high,items,judgments"


ACCESS = [
    ("owner", "private", 200, 200),
    ("staff", "private", 200, 200),
    ("other", "private", 404, 404),
    ("rater", "private", 404, 404),
    ("anonymous", "private", 302, 403),
    ("other", "public", 404, 404),
    ("rater", "public", 404, 404),
    ("anonymous", "public", 302, 403),
]


@pytest.mark.parametrize("who, visibility, page, api", ACCESS)
def test_who_sees_the_summary_is_who_sees_the_import(
    make_dataset, owner, user_named, client_for, who, visibility, page, api
):
    judged = _import(make_dataset(slug="he", data=None, visibility=visibility), owner)
    client = client_for(user_named(who))
    pk = judged.pk
    for summary, of_import, code in (
        (f"/judgments/{pk}/summary/", f"/judgments/{pk}/", page),
        (f"/judgments/{pk}/summary.csv", f"/judgments/{pk}/", page),
        (f"/api/v1/judgments/{pk}/summary/", f"/api/v1/judgments/{pk}/", api),
    ):
        assert client.get(summary).status_code == client.get(of_import).status_code == code
    if who in ("other", "rater"):
        assert f"/judgments/{pk}/summary/" not in client.get("/datasets/he/").content.decode()


@pytest.mark.parametrize("pk", ["0", "999999", "99999999999999999999", "-1", "x"])
def test_no_such_set_is_a_404(judged, owner, client_for, pk):
    client = client_for(owner)
    for url in (f"/judgments/{pk}/summary/", f"/judgments/{pk}/summary.csv"):
        assert client.get(url).status_code == 404
    assert client.get(f"/api/v1/judgments/{pk}/summary/").status_code == 404
