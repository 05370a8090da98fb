"""Writes to accounts: users with a role, invitations, API tokens."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from rest_framework.authtoken.models import Token

from annotate.accounts.models import Invitation, Profile, Role
from annotate.accounts.selectors import default_role
from core.inserts import insert_checked

INVITATION_LIFETIME = timedelta(days=14)


def user_create(
    *, username: str, password: str, role: str = Role.RATER, is_staff: bool = False, email: str = ""
) -> User:
    user = User(username=username, email=email, is_staff=is_staff, is_superuser=is_staff)
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from None
    user.set_password(password)
    insert_checked(user)
    Profile.objects.create(user=user, role=role)
    return user


def profile_ensure(*, user: User, role: str = "", crowd_id: str = "") -> Profile:
    """The user's profile, made on first use for users made outside these services
    (createsuperuser) or by another app (a crowd participant's, with its `crowd_id`)."""
    role = role or default_role(user)
    defaults = {"role": role, "crowd_id": crowd_id}
    return Profile.objects.get_or_create(user=user, defaults=defaults)[0]


def invitation_next_path_check(next_path: str) -> str:
    """The path an invitation may land on: empty, or a path on this site (never another host)."""
    next_path = next_path.strip()
    if not next_path:
        return ""
    local = next_path.startswith("/") and url_has_allowed_host_and_scheme(
        next_path, allowed_hosts=None
    )
    if not local or len(next_path) > 200:
        raise ValidationError({"next_path": "Give a path on this site, such as /r/<token>/."})
    return next_path


def invitation_create(
    *,
    created_by: User,
    role: str = Role.RATER,
    max_uses: int = 1,
    note: str = "",
    next_path: str = "",
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
        next_path=invitation_next_path_check(next_path),
        expires_at=timezone.now() + INVITATION_LIFETIME,
    )


@transaction.atomic
def invitation_accept(*, token: str, username: str, password: str, email: str = "") -> User:
    """Create the invited user; the use count is claimed with a conditional UPDATE, and given
    back (the transaction rolls back) when the account cannot be made."""
    invitation = Invitation.objects.filter(token=token).first()
    if invitation is None or not invitation.is_usable:
        raise ValidationError("This invitation link is not valid any more.")
    claimed = Invitation.objects.filter(
        pk=invitation.pk, uses__lt=F("max_uses"), expires_at__gt=timezone.now()
    ).update(uses=F("uses") + 1)
    if not claimed:  # another sign-up took the last use first
        raise ValidationError("This invitation link is not valid any more.")
    taken = ValidationError({"username": "This username is taken."})
    if User.objects.filter(username__iexact=username).exists():
        raise taken
    try:
        return user_create(username=username, password=password, role=invitation.role, email=email)
    except ValidationError as exc:
        if "username" in exc.message_dict:  # a simultaneous sign-up took the name meanwhile
            raise taken from None
        raise


def token_regenerate(*, user: User) -> Token:
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)
