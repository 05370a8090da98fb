"""The campaigns API: who may create, join, take items and answer them."""

import pytest

from annotate.rating.models import Campaign, Rating
from tests.conftest import DATA

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "who, status", [("owner", 201), ("other", 404), ("rater", 404), ("anonymous", 403)]
)
def test_only_the_dataset_owner_starts_a_campaign(
    make_dataset, client_for, who, status, user_named
):
    make_dataset()
    body = {"dataset": "chat", "name": "Round 1", "ratings_per_unit": 2}
    response = client_for(user_named(who)).post("/api/v1/campaigns/", body, format="json")
    assert response.status_code == status
    assert Campaign.objects.exists() == (status == 201)


def test_a_public_dataset_still_needs_its_owner(make_dataset, client_for, other):
    make_dataset(visibility="public")
    response = client_for(other).post(
        "/api/v1/campaigns/", {"dataset": "chat", "name": "x"}, format="json"
    )
    assert response.status_code == 403


def test_create_on_one_split_with_bad_fields_named(make_dataset, client_for, owner):
    make_dataset()
    response = client_for(owner).post(
        "/api/v1/campaigns/", {"dataset": "chat", "name": "x", "control_rate": 0.9}, format="json"
    )
    assert response.status_code == 400 and "control_rate" in response.json()
    response = client_for(owner).post(
        "/api/v1/campaigns/", {"dataset": "chat", "name": "x", "split": "test"}, format="json"
    )
    assert response.status_code == 201 and response.json()["split"] == "test"
    assert Campaign.objects.get().slots.count() == 2


def test_a_split_the_dataset_lacks_is_a_400_on_split_naming_it(
    make_dataset, client_for, owner, tmp_path
):
    # It was a 404 "No Split matches the given query.", as if the dataset did not exist.
    only_test = tmp_path / "test.jsonl"
    only_test.write_text(
        "".join(
            line + "\n"
            for line in DATA.joinpath("small.jsonl").read_text().splitlines()
            if '"split": "test"' in line
        )
    )
    make_dataset(data=None)
    make_dataset(slug="tests", data=str(only_test))
    for slug, has in (("chat", "it has no items yet"), ("tests", "it has test")):
        body = {"dataset": slug, "split": "dev", "name": "x", "draft": True}
        response = client_for(owner).post("/api/v1/campaigns/", body, format="json")
        assert response.status_code == 400
        assert response.json() == {"split": [f"This dataset has no dev split ({has})."]}
    assert not Campaign.objects.exists()


def test_pairwise_references_are_refused_on_the_mode(make_dataset, client_for, owner):
    make_dataset()
    body = {"dataset": "chat", "name": "x", "mode": "pairwise"}
    response = client_for(owner).post("/api/v1/campaigns/", body, format="json")
    assert response.status_code == 400 and list(response.json()) == ["mode"]


def test_a_scale_of_seven_points_without_labels_gets_none(make_dataset, client_for, owner):
    dataset = make_dataset()
    dataset.scale_max = 7
    dataset.save()
    body = {"dataset": "chat", "name": "x"}  # the default labels name five points
    response = client_for(owner).post("/api/v1/campaigns/", body, format="json")
    assert response.status_code == 201, response.json()
    campaign = Campaign.objects.get()
    assert (campaign.scale, campaign.anchors) == (list(range(1, 8)), [])


@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("other", 404), ("rater", 404), ("anonymous", 403)]
)
def test_campaign_detail_is_for_its_owner(
    make_campaign, make_rater, client_for, who, status, user_named
):
    campaign = make_campaign()
    user = user_named(who)
    if who == "rater":
        from annotate.rating.services.campaigns import campaign_join

        campaign_join(campaign=campaign, rater=user)
    response = client_for(user).get(f"/api/v1/campaigns/{campaign.pk}/")
    assert response.status_code == status
    if status == 200:
        assert response.json()["progress"]["total"] == 18
        assert response.json()["join_url"].endswith(f"/r/{campaign.token}/")


def test_a_rater_joins_takes_an_item_and_answers(make_campaign, client_for, rater):
    campaign = make_campaign()
    client = client_for(rater)
    assert client.post(f"/api/v1/campaigns/{campaign.pk}/next/").status_code == 404
    assert client.post("/api/v1/campaigns/join/", {"token": campaign.token}).status_code == 200
    item = client.post(f"/api/v1/campaigns/{campaign.pk}/next/").json()
    assert set(item) >= {"rating_id", "item", "texts", "scale", "anchors"}
    assert item["scale"] == [1, 2, 3, 4, 5]
    again = client.post(f"/api/v1/campaigns/{campaign.pk}/next/").json()
    assert again["rating_id"] == item["rating_id"]  # resumes the lease
    response = client.post(f"/api/v1/ratings/{item['rating_id']}/", {"score": 4}, format="json")
    assert response.json() == {"rating_id": item["rating_id"], "status": "done", "score": 4}
    progress = client.get(f"/api/v1/campaigns/{campaign.pk}/progress/").json()
    assert progress["done"] == 1 and progress["campaign_total"] == 18
    # The joined campaign is listed, without the owner's join link.
    listed = client.get("/api/v1/campaigns/").json()["results"]
    assert [c["id"] for c in listed] == [campaign.pk] and listed[0]["join_url"] is None


def test_answers_are_checked(make_campaign, make_rater, client_for):
    campaign = make_campaign()
    rater = make_rater(campaign)
    client = client_for(rater)
    rating_id = client.post(f"/api/v1/campaigns/{campaign.pk}/next/").json()["rating_id"]
    url = f"/api/v1/ratings/{rating_id}/"
    assert client.post(url, {"score": 9}, format="json").status_code == 400
    assert client.post(url, {"score": 3, "skip": True}, format="json").status_code == 400
    assert client.post(url, {"flag": "boring"}, format="json").status_code == 400
    assert client.post(url, {"flag": "broken"}, format="json").json()["status"] == "flagged"


def test_nobody_answers_someone_elses_item(make_campaign, make_rater, client_for, owner):
    campaign = make_campaign()
    first, second = make_rater(campaign), make_rater(campaign)
    rating_id = client_for(first).post(f"/api/v1/campaigns/{campaign.pk}/next/").json()["rating_id"]
    for user in (second, owner, None):
        response = client_for(user).post(
            f"/api/v1/ratings/{rating_id}/", {"score": 1}, format="json"
        )
        assert response.status_code in (403, 404)
    assert Rating.objects.get(pk=rating_id).status == "leased"


def test_nothing_left_says_why_and_where_next(make_campaign, make_rater, client_for):
    campaign = make_campaign(ratings_per_unit=1)
    rater = make_rater(campaign)
    client = client_for(rater)
    for _ in range(6):
        rating_id = client.post(f"/api/v1/campaigns/{campaign.pk}/next/").json()["rating_id"]
        client.post(f"/api/v1/ratings/{rating_id}/", {"score": 5}, format="json")
    answer = client.post(f"/api/v1/campaigns/{campaign.pk}/next/")
    assert answer.status_code == 200
    body = answer.json()
    assert body["nothing_left"] is True and body["reason"] == "complete"
    assert "complete" in body["message"] and body["next_url"] == "/accounts/"
    assert "rating_id" not in body


def test_a_setting_that_cannot_change_is_refused_not_dropped(make_campaign, client_for, owner):
    # PATCH {"scale_max": 7} answered 200 and changed nothing, which read as done.
    campaign = make_campaign()
    answer = client_for(owner).patch(
        f"/api/v1/campaigns/{campaign.pk}/", {"scale_max": 7, "rating_budget": 10}, format="json"
    )
    assert answer.status_code == 400
    assert "what can:" in answer.json()["scale_max"][0] and "rating_budget" not in answer.json()
    campaign.refresh_from_db()
    assert (campaign.scale_max, campaign.rating_budget) == (5, 0)


def test_what_the_api_answered_may_be_sent_back(make_dataset, client_for, owner):
    client = client_for(owner)
    make_dataset()
    read = client.get("/api/v1/datasets/chat/").json()
    changed = client.patch("/api/v1/datasets/chat/", {**read, "name": "Renamed"}, format="json")
    assert changed.status_code == 200 and changed.json()["name"] == "Renamed"
    assert changed.json()["slug"] == "chat"
    renamed = client.patch("/api/v1/datasets/chat/", {"slug": "other"}, format="json")
    assert renamed.status_code == 400 and "what can:" in renamed.json()["slug"][0]
