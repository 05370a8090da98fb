"""Reads of teams: one's own, one by its invitation link."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, QuerySet

from core.errors import NotFound
from scoring.leaderboards.models import Team


def teams_of_user(*, user: User | AnonymousUser) -> QuerySet[Team]:
    if not user.is_authenticated:
        return Team.objects.none()
    return (
        Team.objects.filter(members=user)
        .annotate(n_members=Count("members", distinct=True))
        .prefetch_related("members")
        .order_by("name")
    )


def team_get_for_member(*, user: User | AnonymousUser, team_id: int) -> Team:
    """A team is its members'; to anyone else it does not exist."""
    team = teams_of_user(user=user).filter(pk=team_id).first()
    if team is None:
        raise NotFound("No such team.")
    return team


def team_by_invitation(*, token: str) -> Team:
    team = Team.objects.filter(invitation_token=token).first() if token else None
    if team is None:
        raise NotFound("This invitation link is not valid (it may have been renewed).")
    return team


def team_username_taken(*, name: str) -> bool:
    return User.objects.filter(username__iexact=name).exists()


def team_ids_of_user(*, user: User | AnonymousUser) -> list[int]:
    if not user.is_authenticated:
        return []
    return list(Team.objects.filter(members=user).values_list("pk", flat=True))
