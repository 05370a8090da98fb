"""What management commands about a user share: the user an option names."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.management.base import CommandError

from annotate.accounts.selectors import user_by_username


def user_named(username: str, *, option: str = "--owner") -> User:
    """The user of that username; otherwise the command ends with an error naming `option`."""
    user = user_by_username(username=username)
    if user is None:
        raise CommandError(f"{option}: no user {username!r}.")
    return user
