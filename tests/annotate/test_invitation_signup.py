"""Invitation links that sign people up (or let them log in) and land them where they point, a
campaign's link say; hostile input gets form errors that name the field."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from annotate.accounts.models import Invitation
from annotate.accounts.services import invitation_create
from annotate.rating.models import CampaignRater
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "fresh-rater-password-9"


def signup(client, invitation, **fields):
    data = {"username": "newbie", "email": "", "password": NEW_PASSWORD}
    data.update(fields)
    data.setdefault("password_again", data["password"])
    return client.post(reverse("signup", args=[invitation.token]), data)


@pytest.fixture
def campaign_invitation(owner, make_campaign):
    campaign = make_campaign(name="Round one")
    join = reverse("campaign-join", args=[campaign.token])
    return campaign, invitation_create(created_by=owner, max_uses=3, next_path=join)


def test_a_new_person_signs_up_and_lands_in_the_campaign(campaign_invitation, client_for):
    campaign, invitation = campaign_invitation
    client = client_for(None)
    page = client.get(reverse("signup", args=[invitation.token])).content.decode()
    assert "Create account" in page and "Email" in page
    response = signup(client, invitation, email="new@example.org")
    assert response["Location"] == invitation.next_path
    assert (
        client.get(response["Location"]).status_code == 200
    )  # the link's form, sent by its script
    response = client.post(response["Location"])  # which joins them
    assert response["Location"] == reverse("campaign-rate", args=[campaign.pk])
    user = get_user_model().objects.get(username="newbie")
    assert user.email == "new@example.org"
    assert CampaignRater.objects.filter(campaign=campaign, rater=user).exists()
    assert client.get(response["Location"]).status_code == 200


def test_someone_with_an_account_logs_in_instead(campaign_invitation, rater, client_for):
    campaign, invitation = campaign_invitation
    client = client_for(None)
    page = client.get(reverse("signup", args=[invitation.token])).content.decode()
    assert f"{reverse('login')}?next={invitation.next_path}" in page
    response = client.post(
        reverse("login"),
        {"username": "rater", "password": PASSWORD, "next": invitation.next_path},
    )
    assert response["Location"] == invitation.next_path
    client.post(invitation.next_path)  # the link's form, sent by its script
    assert CampaignRater.objects.filter(campaign=campaign, rater=rater).exists()
    invitation.refresh_from_db()
    assert invitation.uses == 0


def test_a_logged_in_visitor_goes_on_as_themselves(campaign_invitation, rater, client_for):
    _, invitation = campaign_invitation
    client = client_for(rater)
    page = client.get(reverse("signup", args=[invitation.token])).content.decode()
    assert "Continue as rater" in page and invitation.next_path in page
    assert "Create account" not in page
    signup(client, invitation, username="second-self")  # a POST makes no second account
    assert not get_user_model().objects.filter(username="second-self").exists()
    invitation.refresh_from_db()
    assert invitation.uses == 0


def test_an_invitation_without_a_destination_lands_home(owner, client_for):
    invitation = invitation_create(created_by=owner)
    assert signup(client_for(None), invitation)["Location"] == reverse("home")


@pytest.mark.parametrize(
    "path",
    ["//evil.example/", "https://evil.example/r/x/", "r/relative/", "/\\evil.example", "x" * 201],
)
def test_an_invitation_lands_only_on_this_site(owner, path):
    with pytest.raises(ValidationError) as refused:
        invitation_create(created_by=owner, next_path=path)
    assert "next_path" in refused.value.message_dict


def test_a_stored_foreign_destination_is_never_followed(owner, client_for):
    invitation = invitation_create(created_by=owner)
    Invitation.objects.filter(pk=invitation.pk).update(next_path="//evil.example/")
    assert signup(client_for(None), invitation)["Location"] == reverse("home")


@pytest.mark.parametrize(
    "fields, field, message",
    [
        ({"username": "u" * 200}, "username", "at most 150 characters"),
        ({"username": "bad\x00name"}, "username", "Null characters are not allowed"),
        ({"username": "no spaces"}, "username", "letters, digits"),
        ({"username": "OWNER"}, "username", "This username is taken"),
        ({"email": "not-an-email"}, "email", "valid email"),
        ({"email": "a\x00@example.org"}, "email", "Null characters"),
        ({"password": "pass\x00word-long-enough"}, "password", "Null characters"),
        ({"password": "12345678"}, "password", "too common"),
        ({"password": "newbie123"}, "password", "too similar"),
        ({"password_again": "something-else-9"}, "password_again", "The two passwords differ"),
    ],
)
def test_hostile_input_gets_errors_naming_the_field(owner, client_for, fields, field, message):
    invitation = invitation_create(created_by=owner)
    response = signup(client_for(None), invitation, **fields)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert field in errors and message in " ".join(errors[field])
    assert get_user_model().objects.count() == 1  # the owner alone
    invitation.refresh_from_db()
    assert invitation.uses == 0


@pytest.mark.parametrize("state", ["unknown", "used up", "expired"])
def test_a_link_that_does_not_work_says_so(owner, client_for, state):
    invitation = invitation_create(created_by=owner)
    token = invitation.token
    if state == "unknown":
        token = "no-such-token"
    elif state == "used up":
        Invitation.objects.filter(pk=invitation.pk).update(uses=1)
    else:
        Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now() - timedelta(1))
    for response in (
        client_for(None).get(reverse("signup", args=[token])),
        client_for(None).post(reverse("signup", args=[token]), {"username": "x"}),
    ):
        assert response.status_code == 404
        assert "This invitation link is not valid" in response.content.decode()


@pytest.mark.parametrize("who", ["owner", "other", "rater", "anonymous"])
def test_anyone_can_open_a_valid_link(campaign_invitation, client_for, user_named, who):
    """The link is the capability: the inviter, another researcher, a rater and a stranger all
    get the page (the logged-in ones the way on, the stranger the form)."""
    _, invitation = campaign_invitation
    page = client_for(user_named(who)).get(reverse("signup", args=[invitation.token]))
    assert page.status_code == 200
    assert ("Create account" in page.content.decode()) == (who == "anonymous")


def test_the_campaign_dashboard_makes_an_invitation_into_the_campaign(
    make_campaign, owner, client_for
):
    campaign = make_campaign(name="Round one")
    client = client_for(owner)
    page = client.get(reverse("campaign-dashboard", args=[campaign.pk])).content.decode()
    assert 'id="campaign-invitation"' in page
    join = reverse("campaign-join", args=[campaign.token])
    data = {"role": "rater", "max_uses": 4, "note": "Round one", "next_path": join}
    response = client.post(reverse("invitation-new"), data, follow=True)
    invitation = Invitation.objects.get()
    assert (invitation.next_path, invitation.max_uses) == (join, 4)
    assert reverse("signup", args=[invitation.token]) in response.content.decode()


def test_the_command_makes_an_invitation_with_a_destination(owner, capsys):
    call_command("create_invitation", "--by", "owner", "--next", "/r/abc/", "--uses", "2")
    invitation = Invitation.objects.get()
    assert invitation.next_path == "/r/abc/"
    assert reverse("signup", args=[invitation.token]) in capsys.readouterr().out


def test_the_log_in_form_says_who_is_signed_in_and_whom_the_page_is_for(client_for, rater):
    client = client_for(rater)
    page = client.get("/accounts/login/?next=/runs/&login_as=ada").content.decode()
    assert "You are signed in as <strong>rater</strong>" in page
    assert "belongs to <strong>ada</strong>, not to rater" in page
    # Only names a username could be are repeated; nobody signed in is told nothing of the kind.
    page = client.get("/accounts/login/?login_as=<b>x</b>").content.decode()
    assert "<b>x</b>" not in page and "needs another account" in page
    assert "signed-in-as" not in client_for(None).get("/accounts/login/").content.decode()
