"""The rater's pages: joining by link, crowd arrival, rating, finishing."""

import pytest
from django.urls import reverse

from annotate.rating.models import CampaignRater, Rating, RatingStatus
from tests.annotate.rater_pages_kit import answer, join, lease, rate_page
from tests.conftest import campaign_form

pytestmark = pytest.mark.django_db


def test_a_logged_in_rater_joins_by_the_campaign_link(make_campaign, client_for, rater):
    campaign = make_campaign()
    client = client_for(rater)
    # Opening the link shows a form (its script sends it): a preview of the link joins no one.
    page = client.get(reverse("campaign-join", args=[campaign.token]))
    assert page.status_code == 200 and b"data-auto-submit" in page.content
    assert not CampaignRater.objects.exists()
    response = join(client, campaign)
    assert response["Location"] == reverse("campaign-rate", args=[campaign.pk])
    assert CampaignRater.objects.filter(campaign=campaign, rater=rater).exists()
    # Once joined, the link leads straight to the rate page.
    again = client.get(reverse("campaign-join", args=[campaign.token]))
    assert again["Location"] == reverse("campaign-rate", args=[campaign.pk])


def test_an_anonymous_visitor_is_asked_to_log_in_first(make_campaign, client_for):
    campaign = make_campaign()
    response = client_for(None).get(reverse("campaign-join", args=[campaign.token]))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not CampaignRater.objects.exists()


def test_a_crowd_participant_arrives_and_resumes(make_campaign, client_for):
    campaign = make_campaign()
    url = reverse("campaign-join", args=[campaign.token]) + "?PROLIFIC_PID=5f3a9c"
    client = client_for(None)
    # The link shows a button; pressing it (a POST) makes the participant's account.
    assert b'value="crowd"' in client.get(url).content
    assert not CampaignRater.objects.exists()
    assert join(client, campaign, "5f3a9c")["Location"] == reverse(
        "campaign-rate", args=[campaign.pk]
    )
    page = rate_page(client, campaign)
    assert page.status_code == 200
    first = Rating.objects.get()
    # Arriving again (another browser) resumes the same account and the same item.
    other_browser = client_for(None)
    join(other_browser, campaign, "5f3a9c")
    rate_page(other_browser, campaign)
    assert Rating.objects.get() == first
    assert CampaignRater.objects.get().crowd_id == "5f3a9c"


def test_an_overlong_participant_id_is_refused(make_campaign, client_for):
    campaign = make_campaign()
    response = join(client_for(None), campaign, "x" * 101)
    assert response.status_code == 400 and b"participant id" in response.content


def test_a_closed_campaign_says_so(make_campaign, client_for):
    campaign = make_campaign(status="closed")
    assert client_for(None).get(reverse("campaign-join", args=[campaign.token])).status_code == 410


def test_the_rate_page_shows_the_conversation_and_the_scale(make_campaign, make_rater, client_for):
    campaign = make_campaign(instructions="Be kind.")
    rater = make_rater(campaign)
    page = rate_page(client_for(rater), campaign).content.decode()
    rating = Rating.objects.get()
    assert rating.slot.reference.text in page and rating.slot.reference.item.message in page
    for label in ("Very poor", "Acceptable", "Very good", "Be kind."):
        assert label in page
    assert 'data-key="3"' in page and 'data-key="s"' in page


def test_answering_by_the_form_moves_on(make_campaign, make_rater, client_for):
    campaign = make_campaign()
    rater = make_rater(campaign)
    client = client_for(rater)
    first = lease(client, campaign)
    answer(client, first, {"score": "4"})
    first.refresh_from_db()
    assert first.score == 4
    second = lease(client, campaign)
    assert second != first
    answer(client, second, {"flag": "offensive"})
    second.refresh_from_db()
    assert second.flag == "offensive"


@pytest.mark.parametrize("score", ["9", "²", "3.5", "9" * 30, "9" * 5000])
def test_a_bad_score_shows_an_error(make_campaign, make_rater, client_for, score):
    campaign = make_campaign()
    rater = make_rater(campaign)
    client = client_for(rater)
    rating = lease(client, campaign)
    response = answer(client, rating, {"score": score}, follow=True)
    assert "Give a whole number from 1 to 5" in response.content.decode()
    rating.refresh_from_db()
    assert rating.status == RatingStatus.LEASED


@pytest.mark.parametrize("who", ["other", "rater", "anonymous"])
def test_only_members_reach_the_rate_page(make_campaign, client_for, who, user_named):
    campaign = make_campaign()
    user = user_named(who)
    response = client_for(user).get(reverse("campaign-rate", args=[campaign.pk]))
    assert response.status_code == (302 if who == "anonymous" else 404)
    if who == "anonymous":
        assert response["Location"].startswith(reverse("login"))


def test_the_owner_who_has_not_joined_is_shown_the_way_in(make_campaign, client_for, owner):
    campaign = make_campaign()
    client = client_for(owner)
    response = client.get(reverse("campaign-rate", args=[campaign.pk]), follow=True)
    assert response.redirect_chain == [(reverse("campaign-dashboard", args=[campaign.pk]), 302)]
    page = response.content.decode()
    assert "You have not joined this campaign as a rater" in page
    assert f"/r/{campaign.token}/" in page  # the link it points to
    join(client, campaign)  # joining makes the owner a rater like any other
    assert rate_page(client, campaign).status_code == 200


def test_when_all_is_rated_the_rater_is_thanked(make_campaign, make_rater, client_for):
    campaign = make_campaign(ratings_per_unit=1)
    rater = make_rater(campaign)
    client = client_for(rater)
    for _ in range(6):
        answer(client, lease(client, campaign), {"score": "3"})
    response = rate_page(client, campaign)
    assert "Thank you" in response.content.decode()


def test_a_crowd_participant_sees_no_code_before_quality_control(make_campaign, client_for):
    campaign = make_campaign(ratings_per_rater=1, control_rate=0.1)
    client = client_for(None)
    join(client, campaign, "abc")
    answer(client, lease(client, campaign), {"score": "3"})
    # Past the share of one, degraded texts built on it (one unit: one can be built).
    control = lease(client, campaign)
    assert control.kind == "bad_reference"
    answer(client, control, {"score": "1"})
    page = rate_page(client, campaign).content.decode()
    assert "completion-pending" in page and "completion-code" not in page


def test_the_account_page_lists_the_raters_campaigns(make_campaign, make_rater, client_for):
    campaign = make_campaign(name="Round one")
    rater = make_rater(campaign)
    page = client_for(rater).get(reverse("account")).content.decode()
    assert "Round one" in page and reverse("campaign-rate", args=[campaign.pk]) in page


def test_a_crowd_participant_who_passed_gets_a_valid_code(make_campaign, client_for):
    from annotate.rating.models import CampaignRater
    from annotate.rating.selectors.completion import completion_codes_check

    campaign = make_campaign(ratings_per_rater=1)
    client = client_for(None)
    join(client, campaign, "good-one")
    answer(client, lease(client, campaign), {"score": "4"})
    CampaignRater.objects.filter(campaign=campaign).update(qc_status="passed")
    page = client.get(reverse("campaign-done", args=[campaign.pk])).content.decode()
    assert "completion-code" in page
    code = page.split('id="completion-code">')[1].split("<")[0]
    assert completion_codes_check(campaign=campaign, entries=[("good-one", code)]).valid == 1


def test_the_owner_sees_campaigns_on_the_dataset_page(make_campaign, client_for, owner, other):
    campaign = make_campaign(name="Round one")
    url = reverse("dataset-detail", args=[campaign.dataset.slug])
    page = client_for(owner).get(url).content.decode()
    assert reverse("campaign-dashboard", args=[campaign.pk]) in page
    assert reverse("campaign-new", args=[campaign.dataset.slug]) in page


@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("other", 404), ("rater", 404), ("anonymous", 302)]
)
def test_only_the_dataset_owner_starts_a_campaign_page(
    make_dataset, client_for, who, status, user_named
):
    dataset = make_dataset(visibility="public" if who == "other" else "private")
    user = user_named(who)
    response = client_for(user).get(reverse("campaign-new", args=[dataset.slug]))
    assert response.status_code == (403 if who == "other" else status)


def test_the_campaign_page_takes_only_the_datasets_own_splits(make_dataset, client_for, owner):
    # The API's "no such split" is a 400 on `split` (tests/annotate/test_campaign_api.py); the
    # page offers the dataset's splits only, and another one is the field's error.
    from annotate.rating.models import Campaign

    dataset = make_dataset()
    foreign = make_dataset(slug="elsewhere").splits.get(name="dev")
    response = client_for(owner).post(
        reverse("campaign-new", args=[dataset.slug]), campaign_form("x", split=foreign.pk)
    )
    assert response.status_code == 200 and "split" in response.context["form"].errors
    assert not Campaign.objects.exists()


def test_starting_a_campaign_leads_to_its_dashboard(make_dataset, client_for, owner):
    dataset = make_dataset()
    response = client_for(owner).post(
        reverse("campaign-new", args=[dataset.slug]),
        campaign_form("Round two"),
    )
    from annotate.rating.models import Campaign

    campaign = Campaign.objects.get(name="Round two")
    assert response["Location"] == reverse("campaign-dashboard", args=[campaign.pk])
    assert campaign.slots.count() == 6


def test_opening_the_rate_page_leases_nothing_its_form_does(make_campaign, make_rater, client_for):
    campaign = make_campaign()
    client = client_for(make_rater(campaign))
    page = client.get(reverse("campaign-rate", args=[campaign.pk])).content.decode()
    assert 'id="next-item"' in page and "data-auto-submit" in page and "Start rating" in page
    assert not Rating.objects.exists()  # a prefetch or a link preview leases nothing
    rating = lease(client, campaign)
    page = client.get(reverse("campaign-rate", args=[campaign.pk])).content.decode()
    assert rating.slot.reference.text in page  # the same lease, shown again


def test_the_post_that_finishes_settles_quality_control_and_the_done_page_only_reads(
    make_campaign, client_for
):
    campaign = make_campaign(ratings_per_rater=1, control_rate=0)
    client = client_for(None)
    join(client, campaign, "p-1")
    membership = CampaignRater.objects.get()
    assert membership.qc_checked_at is None
    answer(client, lease(client, campaign), {"score": "3"}, follow=True)
    membership.refresh_from_db()
    assert membership.qc_checked_at is not None  # judged when the last answer came in
    CampaignRater.objects.update(qc_status="pending", qc_checked_at=None)
    assert "Thank you" in client.get(reverse("campaign-done", args=[campaign.pk])).content.decode()
    assert CampaignRater.objects.get().qc_checked_at is None  # the GET left it to the worker


def test_the_counter_counts_towards_the_budget(make_campaign, make_rater, client_for):
    # Six references wanting three ratings each: 18, but the owner collects 4 at most.
    campaign = make_campaign(rating_budget=4)
    page = rate_page(client_for(make_rater(campaign)), campaign).content.decode()
    assert "campaign 0 / 4 ratings" in page and 'max="4"' in page
    unbudgeted = make_campaign(name="Second round", dataset=campaign.dataset)
    page = rate_page(client_for(make_rater(unbudgeted)), unbudgeted).content.decode()
    assert "campaign 0 / 18 ratings" in page
