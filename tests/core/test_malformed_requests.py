"""A NUL in a query parameter or the path: a 400 naming it on every route, never a 500."""

import pytest

pytestmark = pytest.mark.django_db

ROUTES = [
    "/api/v1/datasets/?split=%00",
    "/api/v1/leaderboards/?page=1%00",
    "/?q=%00",
    "/datasets/x/?split=te%00st",
    "/leaderboards/?a%00=1",
    "/api/v1/datasets/a%00b/",
]


@pytest.mark.parametrize("route", ROUTES)
def test_a_nul_is_refused_with_a_400(client, route):
    response = client.get(route)
    assert response.status_code == 400
    assert "NUL" in response.content.decode()


def test_the_api_answers_json(client):
    response = client.get("/api/v1/datasets/?split=%00")
    assert response.json() == {
        "detail": "Bad request: the query parameter 'split' contains a NUL character."
    }


def test_ordinary_requests_pass(client):
    assert client.get("/api/v1/datasets/?split=dev").status_code == 200
