"""The owner's page of runs: what is waiting, running, done or failed, and why."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.runs.models import RunState
from core.runs.selectors import runs_visible_to

RUNS_PER_PAGE = 50


@login_required
def run_list(request: HttpRequest) -> HttpResponse:
    runs = runs_visible_to(request.user)
    state = request.GET.get("state", "")
    if state in RunState.values:
        runs = runs.filter(state=state)
    page = Paginator(runs, RUNS_PER_PAGE).get_page(request.GET.get("page"))
    context = {"page": page, "state": state, "states": RunState.choices}
    return render(request, "runs/list.html", context)
