"""Reads of runs: who may see which, and the lists the pages, the API and the command show."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet
from django.utils import timezone

from core.runs.kinds import get_kind
from core.runs.models import Run, RunState


def runs_visible_to(user: User | AnonymousUser) -> QuerySet[Run]:
    """A run is visible to its owner and to staff; to anyone else it does not exist."""
    runs = Run.objects.select_related("owner")
    if not user.is_authenticated:
        return runs.none()
    if getattr(user, "is_staff", False):
        return runs
    return runs.filter(owner=user)


def run_for_user(*, user: User | AnonymousUser, run_id: int) -> Run | None:
    return runs_visible_to(user).filter(pk=run_id).first()


def run_by_id(*, run_id: int) -> Run | None:
    """The run of that id, whoever owns it (for the `runs` command)."""
    return Run.objects.filter(pk=run_id).first()


def runs_listed(*, kind: str = "", needing_attention: bool, most: int) -> list[Run]:
    """The newest `most` runs (of `kind`, if given), with their owners: all of them, or only
    those `runs_needing_attention` would show."""
    runs = Run.objects.select_related("owner")
    if kind:
        runs = runs.filter(kind=kind)
    if needing_attention:
        runs = runs_needing_attention(runs)
    return list(runs.order_by("-created_at", "-pk")[:most])


def runs_latest(*, kind: str, scope: str) -> Run | None:
    return Run.objects.filter(kind=kind, scope=scope).order_by("-created_at", "-pk").first()


def runs_active_exists(*, kind: str, scope: str = "", **params: object) -> bool:
    runs = Run.objects.filter(kind=kind, state__in=Run.ACTIVE)
    if scope:
        runs = runs.filter(scope=scope)
    if params:
        runs = runs.filter(**{f"params__{key}": value for key, value in params.items()})
    return runs.exists()


def runs_needing_attention(queryset: QuerySet[Run] | None = None) -> QuerySet[Run]:
    """Failed runs, and active ones that look stuck: running past their grace without a
    heartbeat, or queued for more than a minute (no worker, or the broker is down)."""
    runs = queryset if queryset is not None else Run.objects.all()
    now = timezone.now()
    running = runs.filter(state=RunState.RUNNING).values_list("pk", "kind", "heartbeat_at")
    stuck_ids = [pk for pk, kind, beat in running if beat is None or beat < now - _grace(kind)]
    waiting = Q(state=RunState.QUEUED, created_at__lt=now - timedelta(minutes=1))
    return runs.filter(Q(state=RunState.FAILED) | Q(pk__in=stuck_ids) | waiting)


def _grace(kind: str) -> timedelta:
    try:
        return get_kind(kind).grace
    except LookupError:
        return timedelta(minutes=1)
