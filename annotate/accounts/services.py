"""Writes to accounts: users with a role, invitations, API tokens."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotate.accounts.models import Invitation, Profile, Role

INVITATION_LIFETIME = timedelta(days=14)


def user_create(
    *, username: str, password: str, role: str = Role.RATER, is_staff: bool = False, email: str = ""
) -> User:
    user = User(username=username, email=email, is_staff=is_staff, is_superuser=is_staff)
    validate_password(password, user)
    user.set_password(password)
    user.full_clean()
    user.save()
    Profile.objects.create(user=user, role=role)
    return user


def profile_ensure(*, user: User) -> Profile:
    """Users made outside these services (createsuperuser) get a profile on first use."""
    role = Role.RESEARCHER if user.is_staff else Role.RATER
    return Profile.objects.get_or_create(user=user, defaults={"role": role})[0]


def invitation_create(
    *, created_by: User, role: str = Role.RATER, max_uses: int = 1, note: str = ""
) -> Invitation:
    if role == Role.RESEARCHER and not created_by.is_staff:
        raise ValidationError({"role": "Only staff can invite researchers."})
    if not 1 <= max_uses <= 10_000:
        raise ValidationError({"max_uses": "Use a number from 1 to 10,000."})
    return Invitation.objects.create(
        created_by=created_by,
        role=role,
        max_uses=max_uses,
        note=note,
        expires_at=timezone.now() + INVITATION_LIFETIME,
    )


@transaction.atomic
def invitation_accept(*, token: str, username: str, password: str) -> User:
    """Create the invited user; the use count is claimed with a conditional UPDATE."""
    invitation = Invitation.objects.filter(token=token).first()
    if invitation is None or not invitation.is_usable:
        raise ValidationError("This invitation link is not valid any more.")
    claimed = Invitation.objects.filter(
        pk=invitation.pk, uses__lt=F("max_uses"), expires_at__gt=timezone.now()
    ).update(uses=F("uses") + 1)
    if not claimed:  # another sign-up took the last use first
        raise ValidationError("This invitation link is not valid any more.")
    if User.objects.filter(username__iexact=username).exists():
        raise ValidationError({"username": "This username is taken."})
    return user_create(username=username, password=password, role=invitation.role)


def token_regenerate(*, user: User) -> Token:
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)
