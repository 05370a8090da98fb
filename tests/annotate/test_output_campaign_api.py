"""Output campaigns' REST API: create, join, next, answer, progress — and who may do what."""

import pytest

from annotate.models import OutputCampaign, OutputRating
from tests.annotate.output_campaign_kit import output_eval_dataset

pytestmark = pytest.mark.django_db

API = "/api/v1"


@pytest.fixture
def dataset_systems(make_dataset, owner):
    return output_eval_dataset(make_dataset, owner)


@pytest.fixture
def campaign(dataset_systems, owner, client_for):
    body = {"name": "AB", "mode": "pairwise", "systems": ["mt", "rnn"], "ratings_per_unit": 1}
    response = client_for(owner).post(f"{API}/datasets/he/output-campaigns/", body, format="json")
    assert response.status_code == 201, response.json()
    return OutputCampaign.objects.get(pk=response.json()["id"])


def _join(client, campaign):
    return client.post(f"{API}/output-campaigns/join/", {"token": campaign.token}, format="json")


def test_the_owner_creates_and_lists_campaigns(campaign, owner, client_for):
    listed = client_for(owner).get(f"{API}/datasets/he/output-campaigns/").json()
    assert [c["id"] for c in listed] == [campaign.pk]
    assert listed[0]["token"] == campaign.token and listed[0]["systems"] == ["mt", "rnn"]
    assert campaign.slots.count() == 2


def test_creating_validates_systems_and_mode(dataset_systems, owner, client_for):
    url = f"{API}/datasets/he/output-campaigns/"
    unknown = {"name": "x", "mode": "likert", "systems": ["nope"]}
    assert client_for(owner).post(url, unknown, format="json").status_code == 400
    one = {"name": "x", "mode": "pairwise", "systems": ["mt"]}
    response = client_for(owner).post(url, one, format="json")
    assert response.status_code == 400 and "two or more" in str(response.json())
    assert not OutputCampaign.objects.exists()


def test_a_rater_joins_leases_answers_and_is_done(
    campaign, make_rater, client_for, django_capture_on_commit_callbacks
):
    client = client_for(make_rater())
    joined = _join(client, campaign).json()
    assert joined["id"] == campaign.pk and "token" not in joined
    lease = client.post(f"{API}/output-campaigns/{campaign.pk}/next/").json()
    assert len(lease["outputs"]) == 2 and lease["scale"] == [1, 2, 3, 4, 5]
    assert lease["turns"] and lease["message"]
    again = client.post(f"{API}/output-campaigns/{campaign.pk}/next/").json()
    assert again["rating"] == lease["rating"]  # resume: the same lease
    url = f"{API}/output-campaigns/{campaign.pk}/ratings/{lease['rating']}/"
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        answered = client.post(url, {"score": 5}, format="json").json()
    assert answered["status"] == "done" and len(callbacks) == 1
    rating = OutputRating.objects.get(pk=lease["rating"])
    assert rating.preference == (-2 if rating.a_on_left else 2)
    second = client.post(f"{API}/output-campaigns/{campaign.pk}/next/").json()
    skip_url = f"{API}/output-campaigns/{campaign.pk}/ratings/{second['rating']}/"
    assert client.post(skip_url, {"score": None}, format="json").json()["status"] == "skipped"
    assert client.post(f"{API}/output-campaigns/{campaign.pk}/next/").status_code == 204
    mine = client.get(f"{API}/output-campaigns/{campaign.pk}/my-progress/").json()
    assert mine == {"done": 1, "campaign_done": 1, "campaign_total": 2}


def test_an_out_of_scale_answer_is_refused(campaign, make_rater, client_for):
    client = client_for(make_rater())
    _join(client, campaign)
    lease = client.post(f"{API}/output-campaigns/{campaign.pk}/next/").json()
    url = f"{API}/output-campaigns/{campaign.pk}/ratings/{lease['rating']}/"
    response = client.post(url, {"score": 6}, format="json")
    assert response.status_code == 400 and "score" in response.json()


def test_the_owner_sees_progress_and_qc_verdicts(campaign, owner, make_rater, client_for):
    rater = make_rater()
    _join(client_for(rater), campaign)
    progress = client_for(owner).get(f"{API}/output-campaigns/{campaign.pk}/progress/").json()
    assert progress["total"] == 2 and progress["done"] == 0
    assert progress["raters"] == [
        {"rater": rater.username, "done": 0, "qc_status": "pending", "qc_reasons": []}
    ]


def test_raters_see_only_their_own_work(campaign, owner, other, make_rater, client_for):
    first, second = make_rater(), make_rater()
    for user in (first, second):
        _join(client_for(user), campaign)
    lease = client_for(first).post(f"{API}/output-campaigns/{campaign.pk}/next/").json()
    url = f"{API}/output-campaigns/{campaign.pk}/ratings/{lease['rating']}/"
    assert client_for(second).post(url, {"score": 3}, format="json").status_code == 400
    assert client_for(other).post(url, {"score": 3}, format="json").status_code == 404
    assert OutputRating.objects.get(pk=lease["rating"]).status == "leased"
    progress = f"{API}/output-campaigns/{campaign.pk}/progress/"
    assert client_for(first).get(progress).status_code == 404  # the owner's view
    assert client_for(other).get(progress).status_code == 404
    assert client_for(other).post(f"{API}/output-campaigns/{campaign.pk}/next/").status_code == 404
    mine = f"{API}/output-campaigns/{campaign.pk}/my-progress/"
    assert client_for(other).get(mine).status_code == 404


def test_others_cannot_create_on_a_private_dataset_and_anonymous_nothing(
    campaign, other, make_rater, client_for
):
    body = {"name": "x", "mode": "likert", "systems": ["mt"]}
    for user in (other, make_rater()):
        created = client_for(user).post(f"{API}/datasets/he/output-campaigns/", body, format="json")
        assert created.status_code == 404
        assert client_for(user).get(f"{API}/datasets/he/output-campaigns/").status_code == 404
    anonymous = client_for(None)
    for response in (
        anonymous.post(f"{API}/datasets/he/output-campaigns/", body, format="json"),
        _join(anonymous, campaign),
        anonymous.post(f"{API}/output-campaigns/{campaign.pk}/next/"),
        anonymous.get(f"{API}/output-campaigns/{campaign.pk}/progress/"),
    ):
        assert response.status_code in (401, 403)
    bad = client_for(other).post(f"{API}/output-campaigns/join/", {"token": "x"}, format="json")
    assert bad.status_code == 404
    assert OutputCampaign.objects.count() == 1
