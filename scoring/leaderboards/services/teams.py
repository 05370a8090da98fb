"""Writes of teams: create one, hand out its invitation link, join by it, leave.

A team's submissions are its members': whoever is a member sees, picks, withdraws and cancels
them, and the team's quota is shared. So joining takes the link a member handed out, and a
member may leave at any time (the team's submissions stay on the boards).
"""

from __future__ import annotations

import secrets

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from annotate.accounts.selectors import user_is_researcher
from core.inserts import insert_checked
from scoring.leaderboards.models import Team
from scoring.leaderboards.selectors.teams import team_username_taken


def _require_participant(user: User) -> None:
    if not user_is_researcher(user):
        raise PermissionDenied("Teams are for participants: they need a researcher account.")


def team_create(*, user: User, name: str) -> Team:
    _require_participant(user)
    name = name.strip()
    if not name:
        raise ValidationError({"name": "Name the team."})
    if len(name) > 100:
        raise ValidationError({"name": "Keep the name under 100 characters."})
    taken = ValidationError({"name": f"A team called {name!r} exists; choose another name."})
    if Team.objects.filter(name__iexact=name).exists():
        raise taken
    # A user's own one-person team is named after them (services/submissions.py: team_for).
    if name != user.username and team_username_taken(name=name):
        raise ValidationError({"name": "That is someone's username; choose another name."})
    team = Team(name=name, created_by=user)
    try:
        with transaction.atomic():
            insert_checked(team)
            team.members.add(user)
    except ValidationError as exc:
        if "name" in exc.message_dict:  # the same name, created by a request meanwhile
            raise taken from None
        raise
    return team


def team_invitation_renew(*, team: Team, user: User) -> str:
    """A new invitation link for the team; the old one stops working."""
    if not team.members.filter(pk=user.pk).exists():
        raise PermissionDenied("Only the team's members invite.")
    team.invitation_token = secrets.token_urlsafe(24)
    team.save(update_fields=["invitation_token"])
    return team.invitation_token


def team_join(*, team: Team, user: User) -> Team:
    """Join the team whose invitation link the user followed (found by its token)."""
    _require_participant(user)
    if team.members.filter(pk=user.pk).exists():
        raise ValidationError({"token": f"You are in {team.name} already."})
    team.members.add(user)
    return team


def team_leave(*, team: Team, user: User) -> None:
    """Leave a team: its submissions stay on the boards, its members keep them."""
    if not team.members.filter(pk=user.pk).exists():
        raise ValidationError({"team": "You are not a member of this team."})
    team.members.remove(user)
