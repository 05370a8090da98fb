"""Pages to upload a system output and to follow its scoring."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotate.accounts.selectors import user_is_researcher
from core.auth_request import AuthenticatedRequest
from core.forms import form_add_service_errors
from core.lines import file_lines
from scoring.leaderboards.forms import SubmissionChangeForm, SubmissionForm
from scoring.leaderboards.models import Submission
from scoring.leaderboards.selectors.leaderboards import (
    leaderboard_can_manage,
    leaderboard_get_visible,
)
from scoring.leaderboards.selectors.submissions import (
    submission_get_for_user,
    submission_is_team_member,
    submissions_counted,
    submissions_of_user,
)
from scoring.leaderboards.selectors.teams import teams_of_user
from scoring.leaderboards.services.submissions import submission_create
from scoring.leaderboards.submission_files import UploadRejected


@login_required
@require_http_methods(["GET", "POST"])
def submission_new(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    leaderboard = leaderboard_get_visible(user=request.user, slug=slug)
    if not user_is_researcher(request.user):
        raise PermissionDenied("Participants need a researcher account to submit.")
    names = [team.name for team in teams_of_user(user=request.user)]
    form = SubmissionForm(
        request.POST or None,
        request.FILES or None,
        team_names=names,
        username=request.user.username,
    )
    problems = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            submission = submission_create(
                leaderboard=leaderboard,
                user=request.user,
                lines=file_lines(upload),
                size=upload.size,
                filename=upload.name,
                method=form.cleaned_data["method"],
                team_name=form.cleaned_data["team"],
                description=form.cleaned_data["description"],
                url=form.cleaned_data["url"],
                is_public=form.cleaned_data["is_public"],
            )
        except UploadRejected as exc:
            problems = exc.problems
        except ValidationError as exc:
            form_add_service_errors(form, exc)
        else:
            return redirect("submission-detail", submission_id=submission.pk)
    context = {
        "leaderboard": leaderboard,
        "form": form,
        "problems": problems,
        "mine": submissions_of_user(user=request.user, leaderboard=leaderboard)[:20],
    }
    status = 400 if problems or form.errors else 200
    return render(request, "scoring/submission_new.html", context, status=status)


@login_required
def submission_detail(request: AuthenticatedRequest, submission_id: int) -> HttpResponse:
    submission = submission_get_for_user(user=request.user, submission_id=submission_id)
    return submission_page(request, submission)


def submission_page(
    request: AuthenticatedRequest,
    submission: Submission,
    *,
    change_form: SubmissionChangeForm | None = None,
    status: int = 200,
) -> HttpResponse:
    """A submission with its scores, its standing and the changes this user may make."""
    board = submission.leaderboard
    order = {name: rank for rank, name in enumerate(board.metrics)}
    scores = sorted(submission.scores.all(), key=lambda score: order.get(score.metric, 99))
    context = {
        "submission": submission,
        "scores": scores,
        "can_manage": leaderboard_can_manage(user=request.user, leaderboard=board),
        "is_team": submission_is_team_member(submission=submission, user=request.user),
        "picked": submissions_counted(leaderboard=board, team_id=submission.team_id).count(),
        "change_form": change_form,
    }
    return render(request, "scoring/submission_detail.html", context, status=status)
