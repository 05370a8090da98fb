"""The owner's and the teams' housekeeping pages: a board's settings, and the changes to a
submission's standing (hide, withdraw, restore, count, baseline)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.auth_request import AuthenticatedRequest
from core.forms import form_add_service_errors, form_call
from scoring.leaderboards.forms import LeaderboardSettingsForm, SubmissionChangeForm
from scoring.leaderboards.selectors.leaderboards import leaderboard_get_managed
from scoring.leaderboards.selectors.submissions import submission_get_for_user
from scoring.leaderboards.services.leaderboards import leaderboard_update
from scoring.leaderboards.services.standing import submission_change
from scoring.leaderboards.views.submissions import submission_page


@login_required
@require_http_methods(["GET", "POST"])
def leaderboard_settings(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    refusal = "Only the leaderboard's owner changes its settings."
    board = leaderboard_get_managed(user=request.user, slug=slug, refusal=refusal)
    initial = LeaderboardSettingsForm.initial_of(board)
    form = LeaderboardSettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        settings = form.settings()
        if form_call(form, leaderboard_update, leaderboard=board, user=request.user, **settings):
            messages.success(request, "Settings saved.")
            return redirect("leaderboard-detail", slug=board.slug)
    status = 400 if form.errors else 200
    context = {"board": board, "form": form}
    return render(request, "scoring/leaderboard_settings.html", context, status=status)


@login_required
@require_POST
def submission_change_view(request: AuthenticatedRequest, submission_id: int) -> HttpResponse:
    submission = submission_get_for_user(user=request.user, submission_id=submission_id)
    form = SubmissionChangeForm(request.POST)
    if form.is_valid():
        try:
            submission_change(submission=submission, user=request.user, **form.cleaned_data)
        except ValidationError as exc:
            form_add_service_errors(form, exc)
        else:
            messages.success(request, "Saved.")
            return redirect("submission-detail", submission_id=submission.pk)
    return submission_page(request, submission, change_form=form, status=400)
