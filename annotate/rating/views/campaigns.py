"""Pages to start a campaign (owner) and to join one (raters, crowd participants)."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods

from annotate.datasets.selectors import dataset_can_edit, dataset_get_visible
from annotate.rating.forms import CampaignForm
from annotate.rating.models import Campaign, CampaignStatus
from annotate.rating.selectors.campaigns import campaign_get_by_token, campaign_is_joined
from annotate.rating.services.campaigns import (
    campaign_create,
    campaign_join,
    crowd_rater_get_or_create,
    crowd_username,
)
from core.auth_request import AuthenticatedRequest
from core.forms import form_call

CROWD_ID_PARAMETERS = ("PROLIFIC_PID", "participant_id", "workerId")


@login_required
@require_http_methods(["GET", "POST"])
def campaign_new(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_visible(user=request.user, slug=slug)
    if not dataset_can_edit(user=request.user, dataset=dataset):
        raise PermissionDenied("Only the dataset's owner can start a campaign on it.")
    form = CampaignForm(request.POST or None, dataset=dataset)
    if request.method == "POST" and form.is_valid():
        fields = dict(form.cleaned_data)
        fields["systems"] = list(fields["systems"])
        if not fields["anchors"]:  # none given: the campaign's default labels
            del fields["anchors"]
        campaign = form_call(form, campaign_create, owner=request.user, dataset=dataset, **fields)
        if campaign is not None:
            messages.success(request, f"Campaign {campaign.name} started: share its link.")
            return redirect("campaign-dashboard", campaign_id=campaign.pk)
    return render(request, "annotate/campaigns/new.html", {"form": form, "dataset": dataset})


def _crowd_id(request: HttpRequest) -> str:
    return next((request.GET[k] for k in CROWD_ID_PARAMETERS if request.GET.get(k)), "")


@require_http_methods(["GET", "POST"])  # a HEAD (a link checker) must not join anyone
def campaign_join_view(request: HttpRequest, token: str) -> HttpResponse:
    """A campaign's link: crowd participants arrive with an id, raters with their login. A GET
    shows a form; joining (and a crowd participant's account) is its POST, so that a link
    preview or a prefetch of the link joins no one and makes no account."""
    campaign = campaign_get_by_token(token=token)
    if campaign.status == CampaignStatus.CLOSED:
        return render(request, "annotate/campaigns/closed.html", {"campaign": campaign}, status=410)
    if campaign.status == CampaignStatus.DRAFT:
        context = {"campaign": campaign, "error": "This campaign has not been opened yet."}
        return render(request, "annotate/campaigns/closed.html", context, status=403)
    crowd_id = _crowd_id(request)
    if crowd_id:
        return _crowd_arrival(request, campaign, crowd_id)
    if not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?{urlencode({'next': request.get_full_path()})}")
    user = cast(User, request.user)
    if request.method == "POST":
        campaign_join(campaign=campaign, rater=user)
    elif not campaign_is_joined(campaign=campaign, rater=user):
        # Sent on by the page's script for a person; a preview or a prefetch runs none.
        return render(request, "annotate/campaigns/join.html", {"campaign": campaign})
    return redirect("campaign-rate", campaign_id=campaign.pk)


def _crowd_arrival(request: HttpRequest, campaign: Campaign, crowd_id: str) -> HttpResponse:
    """A GET shows a button; the participant's account is made (and logged in) by its POST. A
    crowd link opened while someone else is logged in never swaps the session silently: the
    person chooses between going on as themselves and joining as the crowd participant."""
    current = request.user
    username = crowd_username(campaign=campaign, participant_id=crowd_id)
    if current.is_authenticated and current.get_username() == username:
        return redirect("campaign-rate", campaign_id=campaign.pk)  # back again, already in
    choice = request.POST.get("join_as") if request.method == "POST" else None
    if current.is_authenticated:
        if choice == "current":
            campaign_join(campaign=campaign, rater=cast(User, current))
            return redirect("campaign-rate", campaign_id=campaign.pk)
        if choice != "crowd":
            context = {"campaign": campaign, "crowd_id": crowd_id, "current": current}
            return render(request, "annotate/campaigns/switch.html", context)
    elif choice != "crowd":
        context = {"campaign": campaign, "crowd_id": crowd_id}
        return render(request, "annotate/campaigns/join.html", context)
    try:
        user = crowd_rater_get_or_create(campaign=campaign, participant_id=crowd_id)
    except ValidationError as exc:
        return render(
            request,
            "annotate/campaigns/closed.html",
            {"campaign": campaign, "error": " ".join(exc.messages)},
            status=400,
        )
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect("campaign-rate", campaign_id=campaign.pk)
