"""Reads of accounts: invitations and API tokens."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet
from rest_framework.authtoken.models import Token

from annotate.models import Invitation

INVITATIONS_SHOWN = 50  # the account page lists the latest ones; older links still work


def invitation_get_by_token(*, token: str) -> Invitation | None:
    """The invitation of a sign-up link, usable or not; None for a link that never existed."""
    return Invitation.objects.filter(token=token).first()


def invitations_sent(*, user: User) -> QuerySet[Invitation]:
    return user.invitations_sent.all()[:INVITATIONS_SHOWN]


def api_token_of(*, user: User) -> Token | None:
    return Token.objects.filter(user=user).first()
