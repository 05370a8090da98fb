"""The lifecycle's pages and API: who may move or delete a campaign, confirmations, bad input."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotate.rating.models import Campaign, CampaignStatus
from tests.annotate.rater_pages_kit import join, rate_page
from tests.conftest import campaign_form

pytestmark = pytest.mark.django_db

API = "/api/v1"


@pytest.fixture
def campaign(make_campaign, make_rater, rater):
    from annotate.rating.services.campaigns import campaign_join

    made = make_campaign(ratings_per_unit=1)
    campaign_join(campaign=made, rater=rater)
    return made


WHO = [("owner", True), ("staff", True), ("other", False), ("rater", False)]


@pytest.mark.parametrize("who, allowed", WHO)
def test_only_the_owner_and_staff_close_and_open_through_the_api(
    campaign, user_named, client_for, who, allowed
):
    client = client_for(user_named(who))
    url = f"{API}/campaigns/{campaign.pk}/transition/"
    answer = client.post(url, {"action": "close"}, format="json")
    assert answer.status_code == (200 if allowed else 404)
    if allowed:
        assert answer.json()["status"] == "closed" and answer.json()["actions"] == ["open"]
        assert client.post(url, {"action": "open"}, format="json").json()["status"] == "open"
    else:
        assert Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.OPEN


def test_anonymous_is_refused_everywhere(campaign, client_for):
    anonymous = client_for(None)
    for path in ("transition", "delete"):
        url = f"{API}/campaigns/{campaign.pk}/{path}/"
        assert anonymous.post(url, {}, format="json").status_code in (401, 403)
    for name in ("campaign-transition", "campaign-delete"):
        page = anonymous.post(reverse(name, args=[campaign.pk]))
        assert page.status_code == 302 and "/accounts/login/" in page["Location"]
    assert Campaign.objects.filter(pk=campaign.pk, status=CampaignStatus.OPEN).exists()


@pytest.mark.parametrize(
    "body, field",
    [({}, "action"), ({"action": "finish"}, "action"), ({"action": ["open"]}, "action")],
)
def test_a_bad_action_is_a_400_naming_the_field(campaign, client_for, owner, body, field):
    answer = client_for(owner).post(
        f"{API}/campaigns/{campaign.pk}/transition/", body, format="json"
    )
    assert answer.status_code == 400 and field in answer.json()


def test_a_move_the_status_does_not_allow_is_a_400(campaign, client_for, owner):
    answer = client_for(owner).post(
        f"{API}/campaigns/{campaign.pk}/transition/", {"action": "open"}, format="json"
    )
    assert answer.status_code == 400
    assert answer.json()["action"] == ["The campaign is open already."]  # was "A open campaign…"


def test_a_draft_is_created_opened_and_joinable_only_once_open(
    make_dataset, client_for, owner, rater
):
    dataset = make_dataset()
    created = client_for(owner).post(
        f"{API}/campaigns/",
        {"dataset": dataset.slug, "name": "Later", "draft": True, "control_rate": 0},
        format="json",
    )
    assert created.status_code == 201 and created.json()["status"] == "draft"
    campaign = Campaign.objects.get(pk=created.json()["id"])
    link = client_for(rater).get(reverse("campaign-join", args=[campaign.token]))
    assert link.status_code == 403 and b"not been opened" in link.content
    joined = client_for(rater).post(f"{API}/campaigns/join/", {"token": campaign.token})
    assert joined.status_code == 400
    client_for(owner).post(reverse("campaign-transition", args=[campaign.pk]), {"action": "open"})
    assert Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.OPEN
    assert join(client_for(rater), campaign).status_code == 302


def test_the_dashboard_shows_the_status_and_the_allowed_moves(campaign, client_for, owner):
    page = client_for(owner).get(reverse("campaign-dashboard", args=[campaign.pk]))
    html = page.content.decode()
    assert 'id="campaign-status">Open<' in html
    assert "Close the campaign" in html and "Reopen" not in html
    client_for(owner).post(reverse("campaign-transition", args=[campaign.pk]), {"action": "close"})
    html = client_for(owner).get(reverse("campaign-dashboard", args=[campaign.pk])).content.decode()
    assert 'id="campaign-status">Closed<' in html and "Reopen" in html


def test_a_bad_move_through_the_page_is_a_message_not_an_error(campaign, client_for, owner):
    client = client_for(owner)
    answer = client.post(
        reverse("campaign-transition", args=[campaign.pk]), {"action": "explode"}, follow=True
    )
    assert answer.status_code == 200 and b"Use one of" in answer.content


@pytest.mark.parametrize("who", ["other", "rater"])
def test_others_cannot_see_or_use_the_deletion_page(campaign, user_named, client_for, who):
    client = client_for(user_named(who))
    url = reverse("campaign-delete", args=[campaign.pk])
    assert client.get(url).status_code == 404
    assert client.post(url, {"confirm": campaign.name}).status_code == 404
    api = client.post(f"{API}/campaigns/{campaign.pk}/delete/", {"confirm": campaign.name})
    assert api.status_code == 404
    assert Campaign.objects.filter(pk=campaign.pk).exists()


def test_deleting_a_campaign_lists_what_goes_and_takes_its_name(campaign, client_for, owner):
    client = client_for(owner)
    url = reverse("campaign-delete", args=[campaign.pk])
    page = client.get(url).content.decode()
    assert "This cannot be undone" in page and "answers of 1 raters" in page
    assert f"<code>{campaign.name}</code>" in page
    wrong = client.post(url, {"confirm": "first round"})
    assert wrong.status_code == 400 and b"Type the campaign" in wrong.content
    assert Campaign.objects.filter(pk=campaign.pk).exists()
    done = client.post(url, {"confirm": campaign.name})
    assert done.status_code == 302 and done["Location"] == f"/datasets/{campaign.dataset.slug}/"
    assert not Campaign.objects.filter(pk=campaign.pk).exists()


@pytest.mark.parametrize("body", [{}, {"confirm": ""}, {"confirm": "nope"}, {"confirm": ["x"]}])
def test_the_deletion_api_requires_the_name(campaign, client_for, owner, body):
    answer = client_for(owner).post(f"{API}/campaigns/{campaign.pk}/delete/", body, format="json")
    assert answer.status_code == 400 and "confirm" in answer.json()
    assert Campaign.objects.filter(pk=campaign.pk).exists()


def test_the_deletion_api_deletes_with_the_name(campaign, client_for, owner):
    answer = client_for(owner).post(
        f"{API}/campaigns/{campaign.pk}/delete/", {"confirm": campaign.name}, format="json"
    )
    assert answer.status_code == 204 and not Campaign.objects.filter(pk=campaign.pk).exists()


def test_a_campaign_a_study_reads_is_kept_and_the_study_named(campaign, client_for, owner):
    # A study's campaign is PROTECTed: the delete answered 500 (ProtectedError), page and API.
    from scoring.study.models import CorrelationStudy

    CorrelationStudy.objects.create(
        owner=owner,
        name="weights study",
        dataset=campaign.dataset,
        weight_source="campaign",
        weight_campaign=campaign,
    )
    client = client_for(owner)
    url = reverse("campaign-delete", args=[campaign.pk])
    before = client.get(url).content.decode()  # said before the name is typed in vain
    assert "cannot be deleted: 1 correlation study (weights study)" in before
    page = client.post(url, {"confirm": campaign.name})
    assert page.status_code == 409 and b"delete the study first" in page.content
    answer = client.post(
        f"{API}/campaigns/{campaign.pk}/delete/", {"confirm": campaign.name}, format="json"
    )
    assert answer.status_code == 409
    assert "cannot be deleted: 1 correlation study (weights study)" in answer.json()["detail"]
    assert Campaign.objects.filter(pk=campaign.pk).exists()


def test_the_done_page_says_why_and_where_next(campaign, client_for, rater):
    from annotate.rating.services.lifecycle import campaign_transition

    campaign_transition(campaign=campaign, action="close")
    page = rate_page(client_for(rater), campaign)
    html = page.content.decode()
    assert 'data-reason="closed"' in html and "closed it" in html
    assert 'href="/accounts/"' in html
    answer = client_for(rater).post(f"{API}/campaigns/{campaign.pk}/next/").json()
    assert answer["reason"] == "closed" and answer["retry_at"] is None


def test_the_campaign_form_can_keep_a_draft(make_dataset, client_for, owner):
    dataset = make_dataset()
    url = reverse("campaign-new", kwargs={"slug": dataset.slug})
    form = client_for(owner).get(url).content.decode()
    assert 'name="draft"' in form and 'name="qc_min_seconds"' in form
    fields = campaign_form(
        "Drafted", ratings_per_unit=2, control_rate=0, extra_ratings_on_disagreement=0, draft="on"
    )
    assert client_for(owner).post(url, fields).status_code == 302
    assert Campaign.objects.get(name="Drafted").status == CampaignStatus.DRAFT
