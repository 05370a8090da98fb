"""Log in and out, sign up by invitation, API tokens, invitations."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotate.accounts.models import Invitation, Role
from annotate.accounts.services import invitation_create
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "fresh-rater-password-9"


def signup(client, token, username="newbie", password=NEW_PASSWORD, again=None):
    return client.post(
        reverse("signup", args=[token]),
        {"username": username, "password": password, "password_again": again or password},
    )


def test_login_and_logout(owner, client_for):
    client = client_for(None)
    response = client.post(reverse("login"), {"username": "owner", "password": PASSWORD})
    assert response.status_code == 302
    assert "owner" in client.get(reverse("home")).content.decode()
    client.post(reverse("logout"))
    assert client.get(reverse("account")).status_code == 302


def test_a_wrong_password_is_refused(owner, client_for):
    response = client_for(None).post(reverse("login"), {"username": "owner", "password": "nope"})
    assert response.status_code == 200
    assert "enter a correct username and password" in response.content.decode()


def test_an_invitation_makes_a_rater_and_logs_them_in(owner, client_for):
    invitation = invitation_create(created_by=owner, max_uses=2)
    client = client_for(None)
    assert client.get(reverse("signup", args=[invitation.token])).status_code == 200
    assert signup(client, invitation.token).status_code == 302
    user = get_user_model().objects.get(username="newbie")
    assert user.profile.role == Role.RATER
    assert client.get(reverse("account")).status_code == 200
    invitation.refresh_from_db()
    assert invitation.uses == 1


def test_a_used_up_invitation_is_refused(owner, client_for):
    invitation = invitation_create(created_by=owner, max_uses=1)
    signup(client_for(None), invitation.token)
    response = signup(client_for(None), invitation.token, username="second")
    assert response.status_code == 404
    assert not get_user_model().objects.filter(username="second").exists()


def test_an_expired_invitation_is_refused(owner, client_for):
    invitation = invitation_create(created_by=owner)
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now() - timedelta(1))
    assert client_for(None).get(reverse("signup", args=[invitation.token])).status_code == 404


def test_signup_names_bad_fields_and_keeps_the_use(owner, client_for):
    invitation = invitation_create(created_by=owner)
    response = signup(client_for(None), invitation.token, password="abc", again="abd")
    assert "The two passwords differ" in response.content.decode()
    response = signup(client_for(None), invitation.token, username="owner")
    assert "This username is taken" in response.content.decode()
    response = signup(client_for(None), invitation.token, password="12345678")
    assert "too common" in response.content.decode()
    invitation.refresh_from_db()
    assert invitation.uses == 0


def test_only_staff_invite_researchers(owner, staff):
    with pytest.raises(Exception, match="Only staff"):
        invitation_create(created_by=owner, role=Role.RESEARCHER)
    assert invitation_create(created_by=staff, role=Role.RESEARCHER).role == Role.RESEARCHER


@pytest.mark.parametrize(
    ("who", "roles"), [("owner", ["rater"]), ("staff", ["rater", "researcher"])]
)
def test_the_invitation_form_offers_the_roles_one_may_invite(client_for, user_named, who, roles):
    page = client_for(user_named(who)).get(reverse("account"))
    form = page.context["invitation_form"]
    assert [value for value, _ in form.fields["role"].choices] == roles


@pytest.mark.parametrize("who, status", [("owner", 302), ("rater", 403), ("anonymous", 302)])
def test_invitations_are_made_by_researchers(client_for, who, status, user_named):
    user = user_named(who)
    response = client_for(user).post(reverse("invitation-new"), {"role": "rater", "max_uses": 5})
    assert response.status_code == status
    assert Invitation.objects.exists() == (who == "owner")


def test_the_account_page_shows_invitation_links(owner, client_for):
    invitation = invitation_create(created_by=owner)
    page = client_for(owner).get(reverse("account")).content.decode()
    assert reverse("signup", args=[invitation.token]) in page


@pytest.mark.parametrize("who", ["owner", "rater"])
def test_anyone_logged_in_can_make_an_api_token(client_for, who, request):
    user = request.getfixturevalue(who)
    client = client_for(user)
    client.post(reverse("account-token"))
    first = Token.objects.get(user=user).key
    assert first in client.get(reverse("account")).content.decode()
    client.post(reverse("account-token"))
    assert Token.objects.get(user=user).key != first


def test_anonymous_cannot_make_a_token(client_for):
    assert client_for(None).post(reverse("account-token")).status_code == 302
    assert not Token.objects.exists()


def test_a_superuser_made_by_createsuperuser_is_shown_a_researchers_profile(client_for):
    from annotate.accounts.models import Profile

    admin = get_user_model().objects.create_superuser("root", "r@example.org", PASSWORD)
    page = client_for(admin).get(reverse("account"))
    assert page.status_code == 200 and "Role: Researcher" in page.content.decode()
    assert client_for(admin).get("/api/v1/me/").json()["role"] == Role.RESEARCHER
    # Shown, not made: a GET writes no row (a service that needs the profile makes it).
    assert not Profile.objects.filter(user=admin).exists()
