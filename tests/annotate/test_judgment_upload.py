"""Upload of a judgments bundle: the page and the API, every problem by file and line, access."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.datasets.models import Item, Reference
from annotate.judgments.models import EvalSystem, Judgment, JudgmentSet
from tests.annotate.test_human_eval import CONTEXTS, JUDGMENTS, REFERENCES, SYSTEMS

pytestmark = pytest.mark.django_db

BAD_ONLY = "judge\tid\tsystem\tq\nj1\tc1\tmt\t\nj2\n"  # no score, too few fields


def _files(judgments=JUDGMENTS, **extra):
    files = {
        "judgments": SimpleUploadedFile("judgments.tsv", judgments.encode()),
        "systems": SimpleUploadedFile("systems.tsv", SYSTEMS.encode()),
        "contexts": SimpleUploadedFile("contexts.tsv", CONTEXTS.encode()),
        "references": SimpleUploadedFile("refs.tsv", REFERENCES.encode()),
    }
    return {**files, "split": "test", **extra}


@pytest.fixture
def dataset(make_dataset):
    return make_dataset(slug="he", data=None)


def test_the_owner_imports_a_bundle_through_the_page(dataset, owner, client_for):
    client = client_for(owner)
    assert client.get("/datasets/he/judgments/import/").status_code == 200
    response = client.post("/datasets/he/judgments/import/", _files(name="paper"))
    imported = JudgmentSet.objects.get()
    assert response.url == f"/judgments/{imported.pk}/"
    assert imported.name == "paper" and imported.report["items_created"] == 3
    page = client.get(response.url).content.decode()
    assert 'id="judgment-report"' in page
    assert "judgments.tsv</td><td>5</td>" in page  # one score short, by file and line
    assert "systems.tsv</td><td>6</td>" in page
    assert "ghost" in page


def test_a_bundle_without_a_readable_judgment_writes_nothing(dataset, owner, client_for):
    response = client_for(owner).post("/datasets/he/judgments/import/", _files(BAD_ONLY))
    assert response.status_code == 400
    page = response.content.decode()
    assert "nothing was written" in page and "judgments.tsv, line 2" in page
    assert "judgments.tsv, line 3" in page
    assert not (JudgmentSet.objects.exists() or Item.objects.exists())
    assert not EvalSystem.objects.exists()


def test_the_judgments_file_is_required(dataset, owner, client_for):
    files = _files()
    del files["judgments"]
    response = client_for(owner).post("/datasets/he/judgments/import/", files)
    assert response.status_code == 200 and not JudgmentSet.objects.exists()


def test_the_api_imports_a_bundle(dataset, owner, client_for):
    response = client_for(owner).post(
        "/api/v1/datasets/he/judgments/", _files(), format="multipart"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["dataset"] == "he" and body["criteria"] == ["relevance", "fluency"]
    assert {(p["file"], p["line"]) for p in body["report"]["problems"]} >= {
        ("judgments.tsv", 5),
        ("judgments.tsv", 7),
        ("systems.tsv", 6),
    }
    assert Judgment.objects.count() == body["report"]["judgments"]
    detail = client_for(owner).get(f"/api/v1/judgments/{body['id']}/")
    assert detail.json()["id"] == body["id"]


def test_the_api_refuses_an_unreadable_bundle_with_every_problem(dataset, owner, client_for):
    response = client_for(owner).post(
        "/api/v1/datasets/he/judgments/", _files(BAD_ONLY), format="multipart"
    )
    assert response.status_code == 400
    body = response.json()
    assert "nothing was written" in body["detail"]
    lines = {(p["file"], p["line"]) for p in body["problems"] if p["level"] == "error"}
    assert lines == {("judgments.tsv", 2), ("judgments.tsv", 3), ("systems.tsv", 6)}
    assert not (JudgmentSet.objects.exists() or Item.objects.exists())


def test_the_api_needs_the_judgments_file(dataset, owner, client_for):
    files = _files()
    del files["judgments"]
    response = client_for(owner).post("/api/v1/datasets/he/judgments/", files, format="multipart")
    assert response.status_code == 400 and "judgments" in response.json()


def test_others_cannot_import_into_a_private_dataset(dataset, other, rater, client_for):
    for user in (other, rater):
        assert client_for(user).get("/datasets/he/judgments/import/").status_code == 404
        assert client_for(user).post("/datasets/he/judgments/import/", _files()).status_code == 404
        api = client_for(user).post("/api/v1/datasets/he/judgments/", _files(), format="multipart")
        assert api.status_code == 404
    assert client_for(None).get("/datasets/he/judgments/import/").status_code == 302
    anonymous = client_for(None).post("/api/v1/datasets/he/judgments/", _files())
    assert anonymous.status_code in (401, 403)
    assert not JudgmentSet.objects.exists()


def test_a_public_dataset_is_still_the_owners_to_import_into(make_dataset, other, client_for):
    make_dataset(slug="open", visibility="public", data=None)
    assert client_for(other).get("/datasets/open/judgments/import/").status_code == 403
    api = client_for(other).post("/api/v1/datasets/open/judgments/", _files(), format="multipart")
    assert api.status_code == 403 and not JudgmentSet.objects.exists()


def test_only_the_owner_and_staff_read_an_import(dataset, owner, other, staff, client_for):
    client_for(owner).post("/datasets/he/judgments/import/", _files())
    pk = JudgmentSet.objects.get().pk
    for url in (f"/judgments/{pk}/", f"/api/v1/judgments/{pk}/"):
        assert client_for(owner).get(url).status_code == 200
        assert client_for(staff).get(url).status_code == 200
        assert client_for(other).get(url).status_code == 404
    assert client_for(None).get(f"/judgments/{pk}/").status_code == 302
    assert client_for(None).get(f"/api/v1/judgments/{pk}/").status_code in (401, 403)


# -- values the csv module, float() or int() take badly ---------------------------------------

GOOD_ROWS = "j1\tc1\tmt\t4\nj2\tc1\tmt\t5\n"


def post_judgments(client, judgments: bytes, name="judgments.tsv", **fields):
    files = _files(**fields)
    files["judgments"] = SimpleUploadedFile(name, judgments)
    return client.post("/api/v1/datasets/he/judgments/", files, format="multipart")


def error_lines(response) -> list[tuple[int, str]]:
    """(line, message) of the errors in the judgments file; the rest of the bundle is good."""
    body = response.json()
    problems = body["report"]["problems"] if "report" in body else body["problems"]
    return [
        (p["line"], p["message"])
        for p in problems
        if p["level"] == "error" and p["file"].startswith("judgments.")
    ]


@pytest.mark.parametrize("score", ["nan", "inf", "-Infinity", "1e999"])
def test_a_score_that_is_no_finite_number_is_named(dataset, owner, client_for, score):
    content = f"judge\tid\tsystem\tq\n{GOOD_ROWS}j3\tc1\tmt\t{score}\n".encode()
    response = post_judgments(client_for(owner), content)
    assert response.status_code == 201  # the good rows are imported, the bad one named
    assert error_lines(response) == [(4, f"q: {score!r} is not a number")]
    assert sorted(Judgment.objects.values_list("score", flat=True)) == [4.0, 5.0]


def test_a_carriage_return_inside_an_unquoted_csv_cell_is_named(dataset, owner, client_for):
    content = b'judge,id,system,q\nj1,c1,mt,4\nj2,c1,m\rt,5\nj3,"c\r1",mt,3\n'
    response = post_judgments(client_for(owner), content, name="judgments.csv")
    assert response.status_code == 201
    message = "a carriage return (\\r) inside an unquoted cell: quote the cell"
    assert error_lines(response)[0] == (3, message)
    judged = sorted(Judgment.objects.values_list("judge", "external_id"))
    assert judged == [("j1", "c1"), ("j3", "c\r1")]  # in quotes, a carriage return is text


def test_a_csv_cell_longer_than_the_csv_modules_limit_is_read(dataset, owner, client_for):
    long_id = "c" * 200_000  # the csv module refuses cells over 128 KiB by default
    content = f"judge,id,system,q\nj1,c1,mt,4\nj1,{long_id},mt,5\n".encode()
    response = post_judgments(client_for(owner), content, name="judgments.csv")
    assert response.status_code == 201  # the id is over 200 characters: named by its line
    assert [line for line, _ in error_lines(response)] == [3]


@pytest.mark.parametrize("column", ["²", "9" * 5000])
def test_a_mapped_column_number_in_other_digits_names_no_column(dataset, owner, client_for, column):
    content = f"judge\tid\tsystem\tq\n{GOOD_ROWS}".encode()
    response = post_judgments(client_for(owner), content, columns=f'{{"judge": "{column}"}}')
    assert response.status_code == 400
    assert "judge" in json.dumps(response.json())
    assert not Judgment.objects.exists()


def test_a_judgments_file_with_a_header_alone_is_named(dataset, owner, client_for):
    content = b"judge\tid\tsystem\tq\n"
    response = post_judgments(client_for(owner), content)
    assert response.status_code == 400
    assert error_lines(response) == [
        (0, "the file holds no judgment rows (a header alone, or nothing)")
    ]
    page = client_for(owner).post("/datasets/he/judgments/import/", _files(content.decode()))
    assert "holds no judgment rows" in page.content.decode()


def test_jsonl_lines_with_a_new_key_each_are_refused_at_the_hundred_and_first(
    dataset, owner, client_for
):
    lines = "".join(
        json.dumps({"judge": "j", "id": f"c{k}", "system": "mt", f"k{k}": 1}) + "\n"
        for k in range(6000)
    )
    response = post_judgments(client_for(owner), lines.encode(), name="judgments.jsonl")
    assert response.status_code == 400
    assert error_lines(response) == [(98, "the lines so far use more than 100 different keys")]
    assert not Judgment.objects.exists()


def test_judged_systems_cost_no_query_each(dataset, owner, client_for):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries(systems: int) -> int:
        rows = "".join(f"j1\tc1\ts{k}\t4\n" for k in range(systems))
        with CaptureQueriesContext(connection) as captured:
            response = post_judgments(client_for(owner), f"judge\tid\tsystem\tq\n{rows}".encode())
        assert response.status_code == 201, response.json()
        return len(captured)

    queries(1)  # the first import also makes the items
    assert queries(3) == queries(60)
    assert EvalSystem.objects.filter(dataset=dataset).count() == 60 + 2  # and mt and rnn


def test_importing_again_with_other_references_says_the_items_were_kept(dataset, owner, client_for):
    assert post_judgments(client_for(owner), JUDGMENTS.encode()).status_code == 201
    changed = REFERENCES.replace("\n", "\tanother reply\n", 2)  # c1 and c2 gain one
    response = post_judgments(
        client_for(owner),
        JUDGMENTS.encode(),
        references=SimpleUploadedFile("refs.tsv", changed.encode()),
    )
    assert response.status_code == 201
    problems = response.json()["report"]["problems"]
    kept = [p for p in problems if "kept as they are" in p["message"]]
    assert [(p["level"], p["subjects"]) for p in kept] == [("warning", ["c1", "c2"])]
    assert "another reply" not in Reference.objects.values_list("text", flat=True)
