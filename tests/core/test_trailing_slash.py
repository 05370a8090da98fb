"""A route asked for without its trailing slash: a redirect that keeps the request's method."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_write_without_the_slash_is_sent_on_with_its_method_and_body(
    method, client_for, owner, settings
):
    # Under DEBUG (make run) Django raised a RuntimeError, a 500; otherwise its 301 made
    # clients send the POST again as a GET.
    settings.DEBUG = True
    client = client_for(owner)
    client.raise_request_exception = False
    response = getattr(client, method)("/api/v1/teams?x=1", {"name": "Owls"}, format="json")
    assert (response.status_code, response["Location"]) == (308, "/api/v1/teams/?x=1")
    followed = client.post("/api/v1/teams", {"name": "Owls"}, format="json", follow=True)
    assert followed.status_code == 201 and followed.json()["name"] == "Owls"


def test_a_read_without_the_slash_is_redirected_as_before(client):
    response = client.get("/api/v1/datasets?page=1")
    assert (response.status_code, response["Location"]) == (301, "/api/v1/datasets/?page=1")
