"""`?format=` that names no format of the endpoint is a 406 listing those it has, not a 404."""

import pytest

pytestmark = pytest.mark.django_db

DATASETS = "/api/v1/datasets/"


@pytest.mark.parametrize("who", ["anonymous", "owner"])
def test_an_unknown_format_is_a_406_naming_the_formats(client_for, user_named, who):
    response = client_for(user_named(who)).get(DATASETS, {"format": "xml"})
    assert response.status_code == 406
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["detail"] == "No format 'xml' here; this endpoint has: api, json."


def test_a_long_unknown_format_is_shown_in_part(client_for):
    response = client_for(None).get(DATASETS, {"format": "x" * 5000})
    assert response.status_code == 406
    assert len(response.json()["detail"]) < 120


@pytest.mark.parametrize(
    ("asked", "content_type"), [("json", "application/json"), ("api", "text/html")]
)
def test_the_formats_an_endpoint_has_still_answer(client_for, asked, content_type):
    response = client_for(None).get(DATASETS, {"format": asked})
    assert response.status_code == 200 and response["Content-Type"].startswith(content_type)


def test_a_suffix_naming_no_format_is_still_no_such_url(client_for):
    assert client_for(None).get("/api/v1/leaderboards/nothing/export.xml").status_code == 404
