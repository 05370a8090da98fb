"""The owner's lifecycle pages: open or close a campaign (from its dashboard), and delete it
after a confirmation that lists what goes and asks for the campaign's name."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotate.rating.forms import CampaignAssignmentForm
from annotate.rating.models import Campaign
from annotate.rating.selectors.campaigns import campaign_get_managed
from annotate.rating.selectors.lifecycle import (
    Footprint,
    campaign_deletion_refusal,
    campaign_footprint,
)
from annotate.rating.services.campaigns import campaign_assignment_update
from annotate.rating.services.lifecycle import campaign_delete, campaign_transition
from core.auth_request import AuthenticatedRequest
from core.forms import Confirmation, confirmation_post, deletion_page, form_errors_text
from core.refusals import succeeded

DONE = {"open": "is open: raters can join and rate", "close": "is closed: no new items go out"}


@login_required
@require_POST
def campaign_transition_view(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
    action = request.POST.get("action", "")
    if succeeded(request, campaign_transition, campaign=campaign, action=action):
        messages.success(request, f"{campaign.name} {DONE[action]}.")
    return redirect("campaign-dashboard", campaign_id=campaign.pk)


@login_required
@require_POST
def campaign_assignment_view(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
    form = CampaignAssignmentForm(request.POST, instance=campaign)
    if not form.is_valid():
        messages.error(request, form_errors_text(form))
    elif succeeded(
        request,
        campaign_assignment_update,
        campaign=campaign,
        user=request.user,
        **form.cleaned_data,
    ):
        messages.success(request, f"{campaign.name}: assignment and budget saved.")
    return redirect("campaign-dashboard", campaign_id=campaign.pk)


def _consequences(campaign: Campaign, footprint: Footprint) -> list[str]:
    lines = [
        f"delete the campaign {campaign.name} and its link for raters;",
        f"delete {footprint.ratings} answers of {footprint.raters} raters, "
        f"{footprint.weights} reference weights and {footprint.slots} queued units;",
    ]
    if footprint.releases:
        lines.append(
            f"leave releases {', '.join(footprint.releases)} as they are (they keep their copy)."
        )
    return lines


@login_required
@require_http_methods(["GET", "POST"])
def campaign_delete_view(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
    answer = confirmation_post(
        request, campaign_delete, campaign=campaign, success=f"Campaign {campaign.name} deleted."
    )
    if answer.done:
        return redirect("dataset-detail", slug=campaign.dataset.slug)
    footprint = campaign_footprint(campaign=campaign)
    if not answer.error and footprint.blockers:  # said before the name is typed in vain
        answer = Confirmation(
            error=campaign_deletion_refusal(campaign=campaign, blockers=footprint.blockers)
        )
    return deletion_page(
        request,
        answer,
        kind="campaign",
        name=campaign.name,
        consequences=_consequences(campaign, footprint),
        action=reverse("campaign-delete", args=[campaign.pk]),
        cancel_url=reverse("campaign-dashboard", args=[campaign.pk]),
    )
