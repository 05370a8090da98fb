"""A selector's core.errors.NotFound is a 404: its message in the API, the site's page elsewhere."""

import pytest
from django.test import RequestFactory

from core.api import exception_handler
from core.errors import NotFound
from core.http import NotFoundMiddleware


def test_the_api_answers_not_found_with_its_message():
    response = exception_handler(NotFound("No such leaderboard."), {})
    assert response.status_code == 404 and response.data == {"detail": "No such leaderboard."}


def test_the_middleware_leaves_other_exceptions_alone():
    middleware = NotFoundMiddleware(lambda request: None)
    assert middleware.process_exception(RequestFactory().get("/"), ValueError("x")) is None


@pytest.mark.django_db
def test_an_api_request_for_a_missing_object_is_a_404_naming_it(client):
    response = client.get("/api/v1/leaderboards/no-such-board/")
    assert response.status_code == 404
    assert response.json() == {"detail": "No such leaderboard."}


@pytest.mark.django_db
def test_a_page_of_a_missing_object_is_the_sites_404_page(client):
    response = client.get("/leaderboards/no-such-board/")
    assert response.status_code == 404
    assert "404.html" in [t.name for t in response.templates]
