"""A crowd link opened while someone else is logged in never swaps the session silently."""

import pytest
from django.urls import reverse

from annotate.rating.models import CampaignRater

pytestmark = pytest.mark.django_db


def _link(campaign, pid="P-42"):
    return reverse("campaign-join", args=[campaign.token]) + f"?PROLIFIC_PID={pid}"


def _logged_in_as(client):
    return client.get("/api/v1/me/").json().get("username")


def test_a_logged_in_user_is_asked_and_stays_logged_in(make_campaign, rater, client):
    campaign = make_campaign()
    client.force_login(rater)
    response = client.get(_link(campaign))
    page = response.content.decode()
    assert response.status_code == 200 and "You are logged in as" in page and "P-42" in page
    assert _logged_in_as(client) == "rater"
    assert not CampaignRater.objects.filter(crowd_id="P-42").exists()


def test_continuing_as_oneself_joins_with_ones_own_account(make_campaign, rater, client):
    campaign = make_campaign()
    client.force_login(rater)
    response = client.post(_link(campaign), {"join_as": "current"})
    assert response.status_code == 302 and _logged_in_as(client) == "rater"
    assert CampaignRater.objects.filter(campaign=campaign, rater=rater).exists()


def test_choosing_the_crowd_participant_switches_the_session(make_campaign, rater, client):
    campaign = make_campaign()
    client.force_login(rater)
    response = client.post(_link(campaign), {"join_as": "crowd"})
    assert response.status_code == 302
    assert _logged_in_as(client).startswith("crowd-")
    assert CampaignRater.objects.filter(campaign=campaign, crowd_id="P-42").exists()


def test_anonymous_and_the_same_participant_go_straight_in(make_campaign, client):
    campaign = make_campaign()
    assert client.get(_link(campaign)).status_code == 200  # anonymous: a button to start
    assert not CampaignRater.objects.exists()  # a link preview makes no account
    assert client.post(_link(campaign), {"join_as": "crowd"}).status_code == 302
    crowd = _logged_in_as(client)
    assert crowd.startswith("crowd-")
    assert client.get(_link(campaign)).status_code == 302  # the same participant again
    assert _logged_in_as(client) == crowd
    assert client.get(_link(campaign, "P-43")).status_code == 200  # another participant: asked
    assert _logged_in_as(client) == crowd


def test_the_choice_needs_csrf(make_campaign, rater):
    from django.test import Client

    campaign = make_campaign()
    client = Client(enforce_csrf_checks=True)
    client.force_login(rater)
    assert client.post(_link(campaign), {"join_as": "crowd"}).status_code == 403


def test_a_participants_account_is_made_whole_in_one_insert(make_campaign):
    # A session is checked against the password: setting it after the insert logged out the
    # participant's other tab that arrived at the same moment (the log-in page, a dead end).
    from django.contrib.auth.models import User
    from django.db.models.signals import post_save

    from annotate.rating.services.campaigns import crowd_rater_get_or_create

    campaign = make_campaign()
    saves = []

    def saved(sender, instance, created, **kwargs):
        saves.append((created, instance.has_usable_password()))

    post_save.connect(saved, sender=User)
    try:
        user = crowd_rater_get_or_create(campaign=campaign, participant_id="PID-9")
        assert crowd_rater_get_or_create(campaign=campaign, participant_id="PID-9") == user
    finally:
        post_save.disconnect(saved, sender=User)
    assert saves == [(True, False)]
    assert (user.profile.role, user.profile.crowd_id) == ("rater", "PID-9")
