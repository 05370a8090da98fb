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


def test_more_query_parameters_than_django_reads_is_a_400(client):
    # The debug page read them again and failed: a 500 under `make run`.
    many = "&".join(f"k{i}=1" for i in range(1001))
    response = client.get(f"/api/v1/datasets/?{many}")
    assert response.status_code == 400
    assert response.json() == {"detail": "Bad request: more than 1,000 query parameters."}


def test_djangos_own_400_is_json_under_the_api(client):
    response = client.get("/api/v1/datasets/", HTTP_HOST="not-ours.example")
    assert response.status_code == 400 and response.json() == {"detail": "Bad request."}
    page = client.get("/datasets/", HTTP_HOST="not-ours.example")
    assert page.status_code == 400 and page["Content-Type"].startswith("text/plain")


@pytest.mark.parametrize("method", ["put", "patch", "delete", "options", "trace"])
def test_pages_answer_405_to_methods_they_do_not_take(client, method):
    response = getattr(client, method)("/datasets/")
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD, POST"
    assert client.generic("FOO", "/runs/").status_code == 405
    assert getattr(client, method)("/api/v1/datasets/").status_code != 500  # the API's own


def test_only_a_post_of_a_campaign_link_joins(make_campaign, client_for, rater):
    from annotate.rating.models import CampaignRater

    campaign = make_campaign()
    client = client_for(rater)
    for method in ("head", "options", "delete"):
        assert getattr(client, method)(f"/r/{campaign.token}/").status_code == 405
    assert not CampaignRater.objects.filter(campaign=campaign, rater=rater).exists()
    assert client.get(f"/r/{campaign.token}/").status_code == 200  # its form, for a POST
    assert not CampaignRater.objects.filter(campaign=campaign, rater=rater).exists()
    assert client.post(f"/r/{campaign.token}/").status_code == 302
    assert CampaignRater.objects.filter(campaign=campaign, rater=rater).exists()


@pytest.mark.slow  # the whole OpenAPI schema, twice: make test and CI, not test-fast
def test_the_schema_names_its_charset_in_either_format(client):
    for suffix in ("", "?format=json"):
        kind = client.get(f"/api/schema/{suffix}")["Content-Type"]
        assert kind.startswith("application/vnd.oai.openapi") and "charset=utf-8" in kind, kind
