"""The owner's and the teams' housekeeping pages: a board's settings (with the metrics computed
elsewhere its owner uploads there), and the changes to a submission's standing (hide,
withdraw, restore, count, baseline)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotate.judgments.forms import MetricScoresForm
from annotate.judgments.services.metrics import MetricScoresRejected
from core.auth_request import AuthenticatedRequest
from core.forms import form_add_service_errors, form_call
from scoring.leaderboards.forms import LeaderboardSettingsForm, SubmissionChangeForm
from scoring.leaderboards.models import Leaderboard
from scoring.leaderboards.selectors.external_metrics import (
    leaderboard_metric_get_managed,
    leaderboard_metric_links,
)
from scoring.leaderboards.selectors.leaderboards import leaderboard_get_managed
from scoring.leaderboards.selectors.submissions import submission_get_for_user, submissions_finished
from scoring.leaderboards.services.external_metrics import (
    REFUSAL,
    leaderboard_metric_delete,
    leaderboard_metrics_import,
)
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
    return settings_page(request, board, metrics_context(board), form, 400 if form.errors else 200)


def settings_page(
    request: AuthenticatedRequest,
    board: Leaderboard,
    metrics: dict,
    form: LeaderboardSettingsForm | None = None,
    status: int = 200,
) -> HttpResponse:
    """The settings form and, below it, the metrics uploaded to the board (their form)."""
    form = form or LeaderboardSettingsForm(initial=LeaderboardSettingsForm.initial_of(board))
    context = {"board": board, "form": form, **metrics}
    return render(request, "scoring/leaderboard_settings.html", context, status=status)


def metrics_context(
    board: Leaderboard, form: MetricScoresForm | None = None, problems: list[str] | None = None
) -> dict:
    """What the settings page shows of the uploaded metrics, and the ids a file names."""
    return {
        "metric_links": leaderboard_metric_links(leaderboard=board),
        "metric_form": form or MetricScoresForm(),
        "metric_problems": problems,
        "finished": submissions_finished(leaderboard=board),
    }


def _settings_again(
    request: AuthenticatedRequest,
    board: Leaderboard,
    form: MetricScoresForm,
    problems: list[str] | None = None,
) -> HttpResponse:
    context = metrics_context(board, form, problems)
    return settings_page(request, board, context, status=400)


@login_required
@require_POST
def leaderboard_metrics_upload(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    board = leaderboard_get_managed(user=request.user, slug=slug, refusal=REFUSAL)
    form = MetricScoresForm(request.POST, request.FILES)
    if not form.is_valid():
        return _settings_again(request, board, form)
    try:
        created = leaderboard_metrics_import(
            leaderboard=board, user=request.user, **form.upload_arguments()
        )
    except MetricScoresRejected as exc:
        return _settings_again(request, board, form, [str(p) for p in exc.problems])
    except ValidationError as exc:
        form.add_error(None, " ".join(exc.messages))
        return _settings_again(request, board, form)
    messages.success(request, f"Added the scores of {', '.join(m.name for m in created)}.")
    return redirect("leaderboard-settings", slug=board.slug)


@login_required
@require_POST
def leaderboard_metric_delete_view(
    request: AuthenticatedRequest, slug: str, metric_id: int
) -> HttpResponse:
    link = leaderboard_metric_get_managed(
        user=request.user, slug=slug, metric_id=metric_id, refusal=REFUSAL
    )
    name = link.metric.name
    leaderboard_metric_delete(link=link, user=request.user)
    messages.success(request, f"Removed {name} and its scores.")
    return redirect("leaderboard-settings", slug=slug)


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
