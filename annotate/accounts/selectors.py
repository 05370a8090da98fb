"""Reads of accounts: profiles, invitations and API tokens."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from rest_framework.authtoken.models import Token

from annotate.accounts.models import Invitation, Profile, Role

INVITATIONS_SHOWN = 50  # the account page lists the latest ones; older links still work


def invitation_get_by_token(*, token: str) -> Invitation | None:
    """The invitation of a sign-up link, usable or not; None for a link that never existed."""
    return Invitation.objects.filter(token=token).first()


def invitation_destination(*, invitation: Invitation) -> str:
    """Where the invited person goes after signing up or logging in (the home page unless the
    invitation names a path on this site)."""
    path = invitation.next_path
    if path.startswith("/") and url_has_allowed_host_and_scheme(path, allowed_hosts=None):
        return path
    return reverse("home")


def invitations_sent(*, user: User) -> QuerySet[Invitation]:
    return user.invitations_sent.all()[:INVITATIONS_SHOWN]


def api_token_of(*, user: User) -> Token | None:
    return Token.objects.filter(user=user).first()


def default_role(user: User) -> str:
    """The role of a user made outside the accounts services (createsuperuser): staff research."""
    return Role.RESEARCHER if user.is_staff else Role.RATER


def profile_of(*, user: User) -> Profile:
    """The user's profile, or the one they would be given (unsaved): a page that shows it is a
    GET, and a GET makes no rows."""
    profile = Profile.objects.filter(user=user).first()
    return profile if profile is not None else Profile(user=user, role=default_role(user))


def user_is_researcher(user: User | AnonymousUser) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    profile = getattr(user, "profile", None)
    return profile is not None and profile.role == Role.RESEARCHER


def user_by_username(*, username: str) -> User | None:
    return User.objects.filter(username=username).first()
