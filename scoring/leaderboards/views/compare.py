"""The page comparing two submissions of a leaderboard."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from scoring.leaderboards.selectors.compare import (
    comparable_submissions,
    compare_items,
    compare_submissions,
    comparison_pair,
)
from scoring.leaderboards.selectors.leaderboards import leaderboard_get_visible, references_visible


def leaderboard_compare(request: HttpRequest, slug: str) -> HttpResponse:
    board = leaderboard_get_visible(user=request.user, slug=slug)
    a, b = comparison_pair(
        leaderboard=board, user=request.user, a_id=request.GET.get("a"), b_id=request.GET.get("b")
    )
    context: dict = {
        "board": board,
        "a": a,
        "b": b,
        "choices": comparable_submissions(leaderboard=board, user=request.user),
        "references_visible": references_visible(user=request.user, leaderboard=board),
    }
    if a is not None and b is not None and a != b:
        comparison = compare_submissions(leaderboard=board, user=request.user, a=a, b=b)
        context.update(metrics=comparison.metrics, answer=comparison.answer)
        if context["references_visible"]:
            page, sides, labels = compare_items(
                leaderboard=board, a=a, b=b, page_number=request.GET.get("page")
            )
            context.update(page=page, sides=sides, stat_labels=labels)
    return render(request, "scoring/leaderboard_compare.html", context)
