"""The rater's own pages: the campaigns they joined, and the undo of their last answer."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotate.rating.selectors.campaigns import campaign_get_for_rater
from annotate.rating.selectors.rater import campaigns_of_rater
from annotate.rating.services.undo import rating_undo
from annotate.rating.views.rating import remember_answer
from core.auth_request import AuthenticatedRequest


@login_required
def my_campaigns(request: AuthenticatedRequest) -> HttpResponse:
    rows = campaigns_of_rater(rater=request.user)
    return render(request, "annotate/campaigns/mine.html", {"rows": rows})


@login_required
@require_POST
def campaign_undo(request: AuthenticatedRequest, campaign_id: int, rating_id: int) -> HttpResponse:
    campaign_get_for_rater(user=request.user, campaign_id=campaign_id)
    try:
        rating_undo(rating_id=rating_id, rater=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        # The item shown next is the undone one: no older answer is offered for undo from it.
        remember_answer(request, campaign_id, None)
        messages.success(request, "Your last answer was taken back: answer it again.")
    return redirect("campaign-rate", campaign_id=campaign_id)
