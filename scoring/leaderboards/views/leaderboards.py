"""Leaderboard pages: the list, a leaderboard with its plot, downloads, exports, a new one."""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotate.accounts.selectors import user_is_researcher
from core.auth_request import AuthenticatedRequest
from core.forms import form_call
from core.plots import IntervalPoint, Spec, intervals, rank_distribution
from scoring.leaderboards.exports import payload_csv, table_payload
from scoring.leaderboards.leaderboard_forms import LeaderboardForm
from scoring.leaderboards.models import Leaderboard, Submission
from scoring.leaderboards.selectors.external_metrics import leaderboard_table_with_uploaded
from scoring.leaderboards.selectors.leaderboard_table import (
    LeaderboardTable,
    TableRow,
    leaderboard_table,
)
from scoring.leaderboards.selectors.leaderboards import (
    leaderboard_can_manage,
    leaderboard_get_visible,
    leaderboards_visible,
    references_visible,
    release_for_leaderboard,
    release_scoring_items,
    user_may_open_leaderboard,
)
from scoring.leaderboards.selectors.submissions import (
    submissions_live_of_user,
    submissions_of_user,
    submissions_unlisted,
)
from scoring.leaderboards.selectors.teams import team_ids_of_user
from scoring.leaderboards.services.leaderboards import leaderboard_create


def leaderboard_list(request: HttpRequest) -> HttpResponse:
    boards = leaderboards_visible(user=request.user)
    can_open = request.user.is_authenticated and user_may_open_leaderboard(user=request.user)
    return render(
        request, "scoring/leaderboard_list.html", {"boards": boards, "can_open": can_open}
    )


def _label(row: TableRow) -> str:
    return f"{row.submission.team.name}: {row.submission.method}"


def table_plot(table: LeaderboardTable) -> Spec:
    points = [
        IntervalPoint(
            _label(row),
            row.primary.score,
            row.primary.ci_low,
            row.primary.ci_high,
            row.submission.is_baseline,
            row.primary.rater_ci_low,
            row.primary.rater_ci_high,
        )
        for row in table.rows
        if row.primary is not None
    ]
    metric = table.leaderboard.primary_metric
    with_raters = any(p.wide_low is not None for p in points)
    return intervals(
        points,
        title=f"{metric} with 95% intervals",
        x_title=metric,
        wide_title="with rater uncertainty" if with_raters else "",
    )


def rank_plot(table: LeaderboardTable) -> Spec | None:
    """Each ranked entry's rank over the bootstrap, when the board has the replicates."""
    rows = [row for row in table.rows if row.rank_probs is not None]
    if not rows:
        return None
    return rank_distribution(
        [_label(row) for row in rows],
        [row.rank_probs or [] for row in rows],
        title="Rank over the bootstrap"
        + (" (items and raters)" if table.stability_with_raters else ""),
    )


def _live_submissions(request: HttpRequest, board: Leaderboard) -> list[Submission]:
    if not request.user.is_authenticated:
        return []
    return submissions_live_of_user(user=request.user, leaderboard=board)


def _teams_part(request: HttpRequest, board: Leaderboard) -> dict:
    """The viewer's own submissions on the board and those taken off it (with reasons)."""
    user = request.user
    mine = submissions_of_user(user=user, leaderboard=board)[:50] if user.is_authenticated else []
    return {
        "mine": mine,
        "my_team_ids": set(team_ids_of_user(user=user)),
        "unlisted": submissions_unlisted(leaderboard=board, user=user),
    }


def leaderboard_detail(request: HttpRequest, slug: str) -> HttpResponse:
    board = leaderboard_get_visible(user=request.user, slug=slug)
    table = leaderboard_table(leaderboard=board, user=request.user)
    table = leaderboard_table_with_uploaded(table=table)
    context = {
        "board": board,
        "table": table,
        "plot": table_plot(table),
        "rank_plot": rank_plot(table),
        "live": _live_submissions(request, board),
        "can_manage": leaderboard_can_manage(user=request.user, leaderboard=board),
        "can_submit": board.is_open and user_is_researcher(request.user),
        "references_visible": references_visible(user=request.user, leaderboard=board),
        **_teams_part(request, board),
    }
    return render(request, "scoring/leaderboard_detail.html", context)


def leaderboard_export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    board = leaderboard_get_visible(user=request.user, slug=slug)
    table = leaderboard_table(leaderboard=board, user=request.user)
    payload = table_payload(
        table, references_visible=references_visible(user=request.user, leaderboard=board)
    )
    if fmt == "csv":
        response = HttpResponse(payload_csv(payload), content_type="text/csv; charset=utf-8")
    elif fmt == "json":
        response = JsonResponse(payload, json_dumps_params={"ensure_ascii": False, "indent": 1})
    else:
        raise Http404("Export as csv or json.")
    response["Content-Disposition"] = f'attachment; filename="{board.slug}.{fmt}"'
    return response


def _jsonl(rows: Iterator[dict]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False) + "\n"


def _download(lines: Iterator[str], filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def leaderboard_items(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """The items to answer, in the order a plain-text submission follows (no references)."""
    board = leaderboard_get_visible(user=request.user, slug=slug)
    scored = release_scoring_items(release=board.release, split=board.split)
    rows = (
        {"id": ref.id, "context": item.context, "message": item.message} for item, ref in scored
    )
    return _download(_jsonl(rows), f"{board.slug}-items.jsonl")


def leaderboard_references(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """The weighted references in the metric CLI's REFS.jsonl format, when visible."""
    board = leaderboard_get_visible(user=request.user, slug=slug)
    if not references_visible(user=request.user, leaderboard=board):
        raise Http404("The references of this split are not published.")
    scored = release_scoring_items(release=board.release, split=board.split)
    rows = (
        {"id": ref.id, "refs": [{"text": r.text, "weight": r.weight} for r in ref.refs]}
        for _, ref in scored
    )
    return _download(_jsonl(rows), f"{board.slug}-refs.jsonl")


@login_required
@require_http_methods(["GET", "POST"])
def leaderboard_new(request: AuthenticatedRequest) -> HttpResponse:
    if not user_is_researcher(request.user):
        raise PermissionDenied("Only researchers open leaderboards.")
    initial = {}
    if request.GET.get("release"):
        initial["release"] = release_for_leaderboard(
            user=request.user, release_id=request.GET["release"]
        )
    form = LeaderboardForm(request.POST or None, initial=initial, user=request.user)
    if request.method == "POST" and form.is_valid():
        board = form_call(form, leaderboard_create, owner=request.user, **form.cleaned_data)
        if board is not None:
            return redirect("leaderboard-detail", slug=board.slug)
    return render(
        request,
        "scoring/leaderboard_new.html",
        {"form": form, "has_releases": user_may_open_leaderboard(user=request.user)},
    )
