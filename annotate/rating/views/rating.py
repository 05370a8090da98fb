"""The rater's page, for every campaign: one reference or output (or two outputs side by side)
at a time, answered by buttons or the keys 1-5, s (skip), o, n, b (flags), u (undo the last
answer).

A GET only shows: the rater's current item, or a small form that asks for one. Items are
leased by POSTs (that form, which the page's script sends at once, and each answer, which asks
for the next item too), so that a chat app unfurling a rater's link or a browser prefetching it
leases nothing and runs no check."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotate.rating.models import Campaign, Flag, Rating
from annotate.rating.selectors.campaigns import (
    campaign_get_for_rater,
    campaign_get_managed,
    campaign_membership,
    rater_progress,
)
from annotate.rating.selectors.lifecycle import rater_nothing_left
from annotate.rating.selectors.rater import campaign_of_rater, rating_current, rating_undoable
from annotate.rating.selectors.results import rating_display
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.qc import rater_qc_settle
from annotate.rating.services.ratings import rating_pass, rating_submit
from core.auth_request import AuthenticatedRequest
from core.converters import natural_or_none
from core.errors import NotFound

# The session remembers the answer this browser gave last, per campaign: the undo button names
# that answer only, never an older one on another item (after an undo, the item on screen is
# the undone one, and the answer before it is not what "undo" would mean to the rater).
LAST_ANSWER_KEY = "rating_last_answer:{}"


def _undoable(request: AuthenticatedRequest, campaign: Campaign) -> Rating | None:
    rating = rating_undoable(campaign=campaign, rater=request.user)
    given_here = request.session.get(LAST_ANSWER_KEY.format(campaign.pk))
    return rating if rating is not None and rating.pk == given_here else None


def remember_answer(request: HttpRequest, campaign_id: int, rating_id: int | None) -> None:
    key = LAST_ANSWER_KEY.format(campaign_id)
    if rating_id is None:
        request.session.pop(key, None)
    else:
        request.session[key] = rating_id


def lease_and_go_on(request: AuthenticatedRequest, campaign: Campaign) -> HttpResponse:
    """Lease the rater's next item (or keep the current one) and show it; with nothing left,
    settle their quality control (their code waits on it) and show the done page."""
    if rating_next(campaign=campaign, rater=request.user) is None:
        rater_qc_settle(campaign=campaign, rater=request.user)
        return redirect("campaign-done", campaign_id=campaign.pk)
    return redirect("campaign-rate", campaign_id=campaign.pk)


@login_required
@require_http_methods(["GET", "POST"])
def campaign_rate(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    try:
        campaign = campaign_get_for_rater(user=request.user, campaign_id=campaign_id)
    except NotFound:
        # Its owner, following a rater's link (the demo tour has one), is shown the way in
        # rather than a 404; anyone else still learns nothing about the campaign.
        campaign_get_managed(user=request.user, campaign_id=campaign_id)
        messages.info(
            request,
            "You have not joined this campaign as a rater. To rate in it yourself, open its "
            "link for raters with an account (below).",
        )
        return redirect("campaign-dashboard", campaign_id=campaign_id)
    if request.method == "POST":
        return lease_and_go_on(request, campaign)
    rating = rating_current(campaign=campaign, rater=request.user)
    progress = rater_progress(campaign=campaign, rater=request.user)
    if rating is None:
        context = {"campaign": campaign, "progress": progress}
        return render(request, "annotate/campaigns/next.html", context)
    context = {
        "campaign": campaign,
        "rating": rating,
        "shown": rating_display(rating=rating),
        "scale": list(zip(campaign.scale, campaign.labels, strict=True)),
        "flags": Flag.choices,
        "progress": progress,
        "undoable": _undoable(request, campaign),
    }
    return render(request, "annotate/campaigns/rate.html", context)


@login_required
@require_POST
def campaign_answer(
    request: AuthenticatedRequest, campaign_id: int, rating_id: int
) -> HttpResponse:
    campaign = campaign_get_for_rater(user=request.user, campaign_id=campaign_id)
    try:
        if request.POST.get("score"):
            score = natural_or_none(request.POST["score"])
            rating_submit(
                rating_id=rating_id, rater=request.user, score=-1 if score is None else score
            )
        else:
            rating_pass(rating_id=rating_id, rater=request.user, flag=request.POST.get("flag", ""))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        remember_answer(request, campaign.pk, rating_id)
    return lease_and_go_on(request, campaign)


@login_required
def campaign_done(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_get_for_rater(user=request.user, campaign_id=campaign_id)
    membership = campaign_membership(campaign=campaign, rater=request.user)
    context = {
        "campaign": campaign,
        "membership": membership,
        "progress": rater_progress(campaign=campaign, rater=request.user),
        "nothing_left": rater_nothing_left(campaign=campaign, rater=request.user),
        "joined": campaign_of_rater(membership=membership),
        "undoable": _undoable(request, campaign),
    }
    return render(request, "annotate/campaigns/done.html", context)
