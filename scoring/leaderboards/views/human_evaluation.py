"""The page that starts a human evaluation of a leaderboard's submissions (the leaderboard's
checkboxes post here; a refusal is shown here with the choices kept)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from core.auth_request import AuthenticatedRequest
from core.forms import form_call
from scoring.leaderboards.leaderboard_forms import HumanEvaluationForm
from scoring.leaderboards.selectors.leaderboards import leaderboard_get_managed
from scoring.leaderboards.services.human_evaluation import human_evaluation_create


@login_required
@require_http_methods(["GET", "POST"])
def leaderboard_human_evaluation(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    refusal = "Only the leaderboard's owner starts a human evaluation of it."
    board = leaderboard_get_managed(user=request.user, slug=slug, refusal=refusal)
    form = HumanEvaluationForm(request.POST or None, leaderboard=board)
    if request.method == "POST" and form.is_valid():
        fields = dict(form.cleaned_data)
        chosen = list(fields.pop("submissions"))
        campaign = form_call(
            form,
            human_evaluation_create,
            leaderboard=board,
            user=request.user,
            submissions=chosen,
            **fields,
        )
        if campaign is not None:
            messages.success(
                request, f"Campaign {campaign.name} is ready; hand out its link from this page."
            )
            return redirect("campaign-dashboard", campaign_id=campaign.pk)
    context = {"board": board, "form": form}
    status = 400 if form.errors else 200
    return render(request, "scoring/leaderboard_human_evaluation.html", context, status=status)
