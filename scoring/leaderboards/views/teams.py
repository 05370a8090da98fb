"""Pages of teams: one's teams and a new one, a team with its invitation link, joining, leaving."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotate.accounts.selectors import user_is_researcher
from core.auth_request import AuthenticatedRequest
from core.forms import form_call
from core.refusals import succeeded
from scoring.leaderboards.forms import TeamForm
from scoring.leaderboards.selectors.teams import (
    team_by_invitation,
    team_get_for_member,
    teams_of_user,
)
from scoring.leaderboards.services.teams import (
    team_create,
    team_invitation_renew,
    team_join,
    team_leave,
)


@login_required
@require_http_methods(["GET", "POST"])
def team_list(request: AuthenticatedRequest) -> HttpResponse:
    form = TeamForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        team = form_call(form, team_create, user=request.user, name=form.cleaned_data["name"])
        if team is not None:
            messages.success(request, f"Team {team.name} created. Invite its members below.")
            return redirect("team-detail", team_id=team.pk)
    context = {
        "teams": teams_of_user(user=request.user),
        "form": form,
        "can_create": user_is_researcher(request.user),
    }
    status = 400 if form.errors else 200
    return render(request, "scoring/team_list.html", context, status=status)


@login_required
def team_detail(request: AuthenticatedRequest, team_id: int) -> HttpResponse:
    team = team_get_for_member(user=request.user, team_id=team_id)
    return render(request, "scoring/team_detail.html", {"team": team})


@login_required
@require_POST
def team_invitation(request: AuthenticatedRequest, team_id: int) -> HttpResponse:
    team = team_get_for_member(user=request.user, team_id=team_id)
    team_invitation_renew(team=team, user=request.user)
    messages.success(request, "A new invitation link: the old one no longer works.")
    return redirect("team-detail", team_id=team.pk)


@login_required
@require_POST
def team_leave_view(request: AuthenticatedRequest, team_id: int) -> HttpResponse:
    team = team_get_for_member(user=request.user, team_id=team_id)
    if succeeded(request, team_leave, team=team, user=request.user):
        messages.success(request, f"You left {team.name}.")
    return redirect("team-list")


@login_required
@require_http_methods(["GET", "POST"])
def team_join_view(request: AuthenticatedRequest, token: str) -> HttpResponse:
    team = team_by_invitation(token=token)
    if not user_is_researcher(request.user):
        raise PermissionDenied("Teams are for participants: they need a researcher account.")
    if request.method == "POST" and succeeded(request, team_join, team=team, user=request.user):
        messages.success(request, f"You joined {team.name}.")
        return redirect("team-detail", team_id=team.pk)
    is_member = request.user in team.members.all()
    return render(request, "scoring/team_join.html", {"team": team, "is_member": is_member})
