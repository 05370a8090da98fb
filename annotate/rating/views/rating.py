"""The rater's page, for every campaign: one reference or output (or two outputs side by side)
at a time, answered by buttons or the keys 1-5, s (skip), o, n, b (flags), u (undo the last
answer)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotate.rating.models import Flag, QCStatus
from annotate.rating.selectors.campaigns import (
    campaign_get_for_rater,
    campaign_get_managed,
    campaign_membership,
    rater_progress,
)
from annotate.rating.selectors.lifecycle import rater_nothing_left
from annotate.rating.selectors.rater import campaign_of_rater, rating_undoable
from annotate.rating.selectors.results import rating_display
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.qc import rater_qc_evaluate
from annotate.rating.services.ratings import rating_pass, rating_submit
from core.auth_request import AuthenticatedRequest
from core.converters import natural_or_none
from core.errors import NotFound


@login_required
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
    rating = rating_next(campaign=campaign, rater=request.user)
    progress = rater_progress(campaign=campaign, rater=request.user)
    if rating is None:
        return redirect("campaign-done", campaign_id=campaign.pk)
    context = {
        "campaign": campaign,
        "rating": rating,
        "shown": rating_display(rating=rating),
        "scale": list(zip(campaign.scale, campaign.labels, strict=True)),
        "flags": Flag.choices,
        "progress": progress,
        "undoable": rating_undoable(campaign=campaign, rater=request.user),
    }
    return render(request, "annotate/campaigns/rate.html", context)


@login_required
@require_POST
def campaign_answer(
    request: AuthenticatedRequest, campaign_id: int, rating_id: int
) -> HttpResponse:
    campaign_get_for_rater(user=request.user, campaign_id=campaign_id)
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
    return redirect("campaign-rate", campaign_id=campaign_id)


@login_required
def campaign_done(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_get_for_rater(user=request.user, campaign_id=campaign_id)
    membership = campaign_membership(campaign=campaign, rater=request.user)
    if membership.qc_status == QCStatus.PENDING:
        # The code depends on the verdict: check now rather than wait for the queued check.
        membership = rater_qc_evaluate(campaign=campaign, rater=request.user)
    context = {
        "campaign": campaign,
        "membership": membership,
        "progress": rater_progress(campaign=campaign, rater=request.user),
        "nothing_left": rater_nothing_left(campaign=campaign, rater=request.user),
        "joined": campaign_of_rater(membership=membership),
        "undoable": rating_undoable(campaign=campaign, rater=request.user),
    }
    return render(request, "annotate/campaigns/done.html", context)
