"""Malformed input never answers 500 and never writes: JSON bodies and every JSONL import refuse
NaN, out-of-range numbers, NUL, lone surrogates, duplicate keys and deep nesting by line and field.
"""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.datasets.models import Item
from annotate.judgments.models import JudgmentSet
from scoring.leaderboards.models import Submission

pytestmark = pytest.mark.django_db

GOOD_ITEM = {"id": "a", "message": "hi", "references": [{"text": "hello"}]}
BAD_LINES = {
    "nan": ('{"id": "a", "message": "hi", "references": [{"text": "x", "weight": NaN}]}',
            "references[0].weight: NaN"),
    "overflow": ('{"id": "a", "message": "hi", "n": 1e999, "references": []}', "n: the number"),
    "nul": ('{"id": "a", "message": "h\\u0000i", "references": [{"text": "x"}]}',
            "message: a NUL character"),
    "surrogate": ('{"id": "a", "message": "hi", "references": [{"text": "\\udc00"}]}',
                  "references[0].text: a lone surrogate"),
    "duplicate": ('{"id": "a", "id": "b", "message": "hi", "references": [{"text": "x"}]}',
                  "appears twice"),
    "deep": ('{"id": "a", "message": "hi", "references": ' + "[" * 5000 + "]" * 5000 + "}",
             "nested deeper"),
}  # fmt: skip
BODIES = {
    "deep": "[" * 100_000 + "]" * 100_000,
    "nan": '{"name": "x", "slug": "x", "scale_min": NaN}',
    "nul": '{"name": "x\\u0000", "slug": "x"}',
    "surrogate": '{"name": "\\ud800", "slug": "x"}',
    "overflow": '{"name": "x", "slug": "x", "scale_max": 1e999}',
}


@pytest.mark.parametrize("kind", BODIES)
def test_a_json_body_we_refuse_is_a_400_naming_the_problem(client_for, owner, kind):
    response = client_for(owner).post(
        "/api/v1/datasets/", BODIES[kind], content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["detail"].startswith("JSON parse error - ")


@pytest.mark.parametrize("kind", BAD_LINES)
def test_a_dataset_import_names_the_line_and_field(import_into_empty_dataset, kind):
    line, message = BAD_LINES[kind]
    content = (json.dumps(GOOD_ITEM) + "\n" + line + "\n").encode()
    response = import_into_empty_dataset("d.jsonl", content)
    assert response.status_code == 400
    problems = response.json()["problems"]
    assert [p["line"] for p in problems] == [2]
    assert message in problems[0]["message"]
    assert not Item.objects.exists()


def test_a_nul_byte_in_a_tsv_import_names_its_line(import_into_empty_dataset):
    content = b"id\tmessage\treference\na\thi\thello\nb\th\x00i\tx\n"
    response = import_into_empty_dataset("d.tsv", content)
    assert response.status_code == 400
    assert response.json()["problems"][0]["line"] == 3
    assert not Item.objects.exists()


@pytest.mark.parametrize("kind", ["nan", "nul", "surrogate", "deep"])
def test_a_submission_names_the_bad_line(make_leaderboard, client_for, other, kind):
    board = make_leaderboard()
    hyp = {
        "nan": "NaN",
        "nul": '"a\\u0000"',
        "surrogate": '"\\ud800"',
        "deep": "[" * 3000 + "]" * 3000,
    }[kind]
    ids = ["d1", "d2", "d3", "d5"]
    lines = [json.dumps({"id": i, "hyp": "words"}) for i in ids[:3]]
    lines.append('{"id": "d5", "hyp": ' + hyp + "}")
    response = client_for(other).post(
        f"/api/v1/leaderboards/{board.slug}/submissions/",
        {
            "file": SimpleUploadedFile("out.jsonl", "\n".join(lines).encode()),
            "method": "m",
            "format": "jsonl",
        },
    )
    assert response.status_code == 400
    assert response.json()["problems"][0]["line"] == 4
    assert not Submission.objects.exists()


def test_judgments_with_nul_and_nan_are_reported_by_line(make_dataset, client_for, owner):
    make_dataset(slug="he", data=None)
    lines = [
        '{"judge": "j1", "id": "c1", "system": "a", "scores": {"relevance": 4}}',
        '{"judge": "j1", "id": "c2", "system": "a", "scores": {"relevance": NaN}}',
        '{"judge": "j\\u0000", "id": "c3", "system": "a", "scores": {"relevance": 3}}',
        '{"judge": "j2", "id": "c4", "system": "a\x00", "scores": {"relevance": 3}}',
    ]
    response = client_for(owner).post(
        "/api/v1/datasets/he/judgments/",
        {"judgments": SimpleUploadedFile("j.jsonl", "\n".join(lines).encode())},
    )
    assert response.status_code in (201, 400)
    text = response.content.decode()
    assert "NaN" in text and "NUL" in text
    for judgment_set in JudgmentSet.objects.all():
        assert "\x00" not in json.dumps(
            list(judgment_set.judgments.values_list("judge", flat=True))
        )


def test_a_tsv_cell_past_the_csv_modules_limit_is_read(import_into_empty_dataset):
    long = "word " * 40_000  # 200 KB: the csv module refuses cells over 128 KiB by default
    content = f"id\tmessage\treference\na\t{long}\thello\n".encode()
    response = import_into_empty_dataset("d.tsv", content)
    assert response.status_code == 201, response.content
    assert Item.objects.get(external_id="a").message == long


def test_a_lone_carriage_return_shifts_no_line_number(import_into_empty_dataset):
    """Lines end at "\\n" only, as editors count them (a lone "\\r" is JSON's white space)."""
    item = {**GOOD_ITEM, "references": [{"text": "x", "origin": "nowhere"}]}
    lines = [
        json.dumps({**GOOD_ITEM, "id": "a"}),
        json.dumps({**GOOD_ITEM, "id": "b"}).replace(", ", ",\r", 1),
        json.dumps({**GOOD_ITEM, "id": "c"}),
        json.dumps({**item, "id": "d"}),
    ]
    response = import_into_empty_dataset("d.jsonl", "\n".join(lines).encode())
    assert response.status_code == 400
    assert [(p["line"], p["field"]) for p in response.json()["problems"]] == [
        (4, "references[0].origin")
    ]


def test_a_lone_carriage_return_in_a_submission_ends_no_line(make_leaderboard, client_for, other):
    board = make_leaderboard()
    content = b"the cat sat\ron a mat\nwhat a great match\nsee you then\ni love cheese pizza\n"
    response = client_for(other).post(
        f"/api/v1/leaderboards/{board.slug}/submissions/",
        {"file": SimpleUploadedFile("out.txt", content), "method": "m"},
    )
    assert response.status_code == 201, response.json()
    assert response.json()["n_lines"] == 4
    assert Submission.objects.get().file.read() == content  # stored as it came


def test_reading_a_dataset_file_stops_after_a_thousand_wrong_lines(import_into_empty_dataset):
    response = import_into_empty_dataset("d.jsonl", b"{}\n" * 100_000)
    assert response.status_code == 400
    problems = response.json()["problems"]
    stop = [p for p in problems if "reading stopped" in p["message"]]
    assert stop == [
        {
            "line": 1001,
            "field": "",
            "message": "reading stopped here: 1,000 lines were wrong already",
        }
    ]
    assert not Item.objects.exists()
