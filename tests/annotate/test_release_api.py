"""The release API names the release it made: its id, which a study or a leaderboard takes."""

import pytest

from annotate.releases.models import Release
from tests.annotate.release_kit import _media, rated  # noqa: F401

pytestmark = pytest.mark.django_db
URL = "/api/v1/datasets/chat/releases/"


def test_freezing_answers_with_the_new_releases_id(
    owner, make_dataset, make_campaign, make_rater, client_for
):
    _, campaign = rated(make_dataset, make_campaign, make_rater)
    body = {"version": "1.0.0", "campaign": campaign.pk}
    response = client_for(owner).post(URL, body, format="json")
    assert response.status_code == 201, response.json()
    made = Release.objects.get(dataset__slug="chat", version="1.0.0")
    assert response.json()["id"] == made.pk
    confirm = {"confirm": "chat@1.0.0"}
    published = client_for(owner).post(f"{URL}1.0.0/publish/", confirm, format="json")
    assert published.status_code == 200, published.json()
    assert published.json()["id"] == made.pk
    assert [r["id"] for r in client_for(owner).get(URL).json()["results"]] == [made.pk]
    assert client_for(owner).get(f"{URL}1.0.0/").json()["id"] == made.pk


@pytest.mark.parametrize("who, code", [("other", 403), ("rater", 403), ("anonymous", 403)])
def test_only_the_owner_freezes(
    owner, make_dataset, make_campaign, make_rater, client_for, request, who, code
):
    _, campaign = rated(make_dataset, make_campaign, make_rater)
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = client_for(user).post(URL, {"version": "1.0.0", "campaign": campaign.pk})
    assert response.status_code == code
    assert not Release.objects.exists()


def test_a_bad_version_is_named(owner, make_dataset, make_campaign, make_rater, client_for):
    _, campaign = rated(make_dataset, make_campaign, make_rater)
    response = client_for(owner).post(URL, {"version": "v1", "campaign": campaign.pk})
    assert response.status_code == 400 and "version" in response.json()
