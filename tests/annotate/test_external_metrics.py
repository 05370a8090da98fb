"""Per-response scores of metrics computed elsewhere, uploaded to a judgment set: what is
stored, every refusal by line and column, the page, the API, the command, who may."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from annotate.judgments.models import ExternalMetric, ExternalScore
from annotate.judgments.services.metrics import MetricScoresRejected, external_metrics_import
from tests.scoring.study_kit import judgments_on_test_split

pytestmark = pytest.mark.django_db

SYSTEMS, ITEMS = ("good", "bad"), ("t0", "t1", "t2")
TSV = (
    "id\tsystem\tcomet\tllm_judge\tresponse\n"
    "t0\tgood\t0.91\t4\tthe cat sat\n"
    "t1\tgood\t0.80\t5\ta dog ran\n"
    "t2\tgood\t-0.5\t3\twe like tea\n"
    "t0\tbad\t0.12\t1\tcat\n"
    "t1\tbad\t1e-3\t2\tdog\n"
    "t2\tbad\t0\t1\ttea\n"
)


@pytest.fixture
def judged(owner, make_dataset):
    dataset = make_dataset(slug="he", data=None)
    lines = [
        json.dumps({"judge": "j1", "id": i, "system": s, "scores": {"relevance": 3}})
        for s in SYSTEMS
        for i in ITEMS
    ]
    return judgments_on_test_split(owner, dataset, lines, name="human")


def _import(judged, owner, text, **kwargs):
    name = kwargs.pop("name", "scores.tsv")
    return external_metrics_import(
        judgment_set=judged, user=owner, name=name, data=text.encode(), **kwargs
    )


def _stored(name):
    return {
        (s.system.name, s.external_id): s.score
        for s in ExternalScore.objects.filter(metric__name=name).select_related("system")
    }


def test_the_import_stores_what_the_file_says(judged, owner):
    created = _import(judged, owner, TSV, lower_is_better=["llm_judge"], description="wmt22-da")
    assert [m.name for m in created] == ["comet", "llm_judge"]
    assert _stored("comet") == {
        ("good", "t0"): 0.91, ("good", "t1"): 0.80, ("good", "t2"): -0.5,
        ("bad", "t0"): 0.12, ("bad", "t1"): 0.001, ("bad", "t2"): 0.0,
    }  # fmt: skip
    assert _stored("llm_judge")[("bad", "t1")] == 2.0
    comet, judge = created
    assert comet.higher_is_better and not judge.higher_is_better
    assert comet.description == "wmt22-da" and comet.report["imported"] == 6
    assert str(comet) == "external: comet"


def test_csv_and_jsonl_read_alike_and_named_metrics_alone_are_taken(judged, owner):
    csv = TSV.replace("\t", ",")
    _import(judged, owner, csv, name="s.csv", metrics=["llm_judge"])
    assert list(ExternalMetric.objects.values_list("name", flat=True)) == ["llm_judge"]
    rows = [
        json.dumps({"item": i, "model": s, "bertscore": 0.5 + k / 10})
        for k, (s, i) in enumerate((s, i) for s in SYSTEMS for i in ITEMS)
    ]
    _import(judged, owner, "\n".join(rows), name="s.jsonl")
    assert _stored("bertscore")[("bad", "t2")] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("cell", "shown"),
    [("nan", "'nan'"), ("inf", "'inf'"), ("-Infinity", "'-Infinity'"), ("0.5x", "'0.5x'"),
     ("", "'an empty cell'"), ("1_000", "'1_000'")],
)  # fmt: skip
def test_a_cell_that_is_not_a_finite_number_refuses_the_file_naming_line_and_column(
    judged, owner, cell, shown
):
    text = TSV.replace("t1\tbad\t1e-3\t2", f"t1\tbad\t{cell}\t2")
    with pytest.raises(MetricScoresRejected) as refused:
        _import(judged, owner, text)
    (problem,) = refused.value.problems
    assert (problem.line, problem.field) == (6, "comet")
    assert shown in problem.message and "not a finite number" in problem.message
    assert "scores.tsv, line 6, comet" in str(refused.value.messages[0])
    assert not ExternalMetric.objects.exists() and not ExternalScore.objects.exists()


def test_jsonl_nan_and_booleans_are_refused_by_line_and_column(judged, owner):
    rows = [
        '{"id": "t0", "system": "good", "m": 0.5}',
        '{"id": "t1", "system": "good", "m": true}',
        '{"id": "t2", "system": "good", "m": NaN}',
    ]
    with pytest.raises(MetricScoresRejected) as refused:
        _import(judged, owner, "\n".join(rows), name="s.jsonl")
    found = {(p.line, p.field) for p in refused.value.problems}
    assert (2, "m") in found and 3 in {p.line for p in refused.value.problems}
    assert not ExternalMetric.objects.exists()


def test_a_response_given_twice_and_missing_columns_are_refused(judged, owner):
    with pytest.raises(MetricScoresRejected) as refused:
        _import(judged, owner, TSV + "t0\tgood\t0.3\t2\tagain\n")
    (problem,) = refused.value.problems
    assert problem.line == 8 and "on line 2" in problem.message
    with pytest.raises(MetricScoresRejected) as refused:
        _import(judged, owner, "id\tcomet\nt0\t0.5\n")
    assert [(p.line, p.field) for p in refused.value.problems] == [(1, "system")]
    with pytest.raises(MetricScoresRejected) as refused:
        _import(judged, owner, "t0\tgood\t0.5\nt1\tgood\t0.4\n")  # no header: no names
    assert "needs a name" in refused.value.problems[0].message
    with pytest.raises(MetricScoresRejected) as refused:
        _import(judged, owner, TSV, metrics=["chrf"])
    assert refused.value.problems[0].field == "chrf"


def test_unjudged_systems_and_items_are_skipped_with_a_warning(judged, owner):
    text = TSV + "t0\tghost\t0.3\t2\tx\nt9\tgood\t0.3\t2\tx\n"
    (comet, _) = _import(judged, owner, text)
    assert comet.report["imported"] == 6 and comet.report["rows"] == 8
    messages = [p["message"] for p in comet.report["problems"]]
    assert any("ghost" in m for m in messages) and any("t9" in m for m in messages)
    with pytest.raises(MetricScoresRejected):
        _import(judged, owner, "id\tsystem\tx\nt0\tghost\t1\n")


def test_a_taken_name_is_refused_and_nothing_else_is_written(judged, owner):
    _import(judged, owner, TSV, metrics=["comet"])
    with pytest.raises(MetricScoresRejected) as refused:
        _import(judged, owner, TSV)
    assert refused.value.problems[0].field == "comet"
    assert list(ExternalMetric.objects.values_list("name", flat=True)) == ["comet"]


def test_hostile_files_are_refused_without_a_crash(judged, owner):
    for data in (b"\x00\x01\x02\xff" * 1000, b"", "\t".join("x" * 300 for _ in range(3)).encode()):
        with pytest.raises(MetricScoresRejected):
            external_metrics_import(judgment_set=judged, user=owner, name="x.tsv", data=data)
    long_name = "id\tsystem\t" + "m" * 150 + "\nt0\tgood\t1\n"
    with pytest.raises(MetricScoresRejected) as refused:
        _import(judged, owner, long_name)
    assert "at most 100 characters" in refused.value.problems[0].message
    assert not ExternalMetric.objects.exists()


def test_only_the_owner_or_staff_may_import(judged, other, staff):
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        _import(judged, other, TSV)
    assert len(_import(judged, staff, TSV)) == 2


# --- the API ---------------------------------------------------------------------------------


def _upload(text=TSV, name="scores.tsv", **fields):
    return {"file": SimpleUploadedFile(name, text.encode()), **fields}


@pytest.mark.parametrize(
    ("who", "status"), [("owner", 201), ("staff", 201), ("other", 404), ("rater", 404),
                        ("anonymous", 403)]
)  # fmt: skip
def test_the_api_upload_is_the_judgment_sets_owners_and_staffs(
    judged, user_named, client_for, who, status
):
    client = client_for(user_named(who))
    url = f"/api/v1/judgments/{judged.pk}/metrics/"
    response = client.post(url, _upload(lower_is_better="llm_judge"), format="multipart")
    assert response.status_code == status
    assert ExternalMetric.objects.exists() == (status == 201)
    if status == 201:
        body = response.json()
        assert [(m["display"], m["higher_is_better"]) for m in body] == [
            ("external: comet", True),
            ("external: llm_judge", False),
        ]
        assert client.get(url).json()[0]["name"] == "comet"
    else:
        assert client.get(url).status_code == status


def test_the_api_refusal_lists_line_and_column_and_bad_ids_are_404(judged, owner, client_for):
    client = client_for(owner)
    url = f"/api/v1/judgments/{judged.pk}/metrics/"
    response = client.post(url, _upload(TSV.replace("0.80", "n/a")), format="multipart")
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert (problem["line"], problem["field"]) == (3, "comet")
    for bad in ("999999", "0", "abc", "99999999999999999999"):
        assert client.post(f"/api/v1/judgments/{bad}/metrics/", _upload()).status_code == 404
    assert client.post(url, {}, format="multipart").status_code == 400


def test_a_file_over_the_import_limit_is_refused_unread(judged, owner, client_for, settings):
    settings.IMPORT_MAX_BYTES = 100
    client = client_for(owner)
    response = client.post(f"/api/v1/judgments/{judged.pk}/metrics/", _upload(), format="multipart")
    assert response.status_code == 400 and "larger than" in response.json()["detail"]
    page = client.post(f"/judgments/{judged.pk}/metrics/", _upload())
    assert page.status_code == 400 and not ExternalMetric.objects.exists()


# --- the page and the command ----------------------------------------------------------------


def test_the_page_uploads_and_lists_the_metrics(judged, owner, client_for):
    client = client_for(owner)
    page = client.get(f"/judgments/{judged.pk}/").content.decode()
    assert 'id="external-metric-form"' in page
    response = client.post(f"/judgments/{judged.pk}/metrics/", _upload(metrics="comet"))
    assert response.status_code == 302 and response.url == f"/judgments/{judged.pk}/"
    page = client.get(response.url).content.decode()
    assert "external: comet" in page and "external: llm_judge" not in page


def test_the_page_shows_a_refusal_by_line_and_column(judged, owner, client_for):
    response = client_for(owner).post(
        f"/judgments/{judged.pk}/metrics/", _upload(TSV.replace("0.80", "inf"))
    )
    assert response.status_code == 400
    assert "scores.tsv, line 3, comet" in response.content.decode()
    assert not ExternalMetric.objects.exists()


@pytest.mark.parametrize(("who", "status"), [("other", 404), ("rater", 404), ("anonymous", 302)])
def test_the_page_is_the_owners(judged, user_named, client_for, who, status):
    response = client_for(user_named(who)).post(f"/judgments/{judged.pk}/metrics/", _upload())
    assert response.status_code == status and not ExternalMetric.objects.exists()


def test_the_command_imports_and_refuses_by_line_and_column(judged, tmp_path, capsys):
    path = tmp_path / "scores.tsv"
    path.write_text(TSV)
    args = ("import_metric_scores", str(judged.pk), str(path))
    call_command(*args, "--lower-is-better", "llm_judge")
    assert "external: comet: 6 responses" in capsys.readouterr().out
    assert not ExternalMetric.objects.get(name="llm_judge").higher_is_better
    path.write_text(TSV.replace("t0\tbad\t0.12", "t0\tbad\tNaN").replace("comet", "c2"))
    with pytest.raises(CommandError, match="scores.tsv, line 5, c2"):
        call_command("import_metric_scores", str(judged.pk), str(path), "--metric", "c2")
    with pytest.raises(CommandError, match="No set of judgments"):
        call_command("import_metric_scores", "999999", str(path))
