"""Output campaigns' pages: the owner starts one and follows it; raters join by link and rate
one output (Likert) or two side by side (pairwise A/B) with buttons or the keys 1-5 and s."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotate.http import AuthenticatedRequest
from annotate.models import EvalSystem, OutputCampaignMode, SplitName
from annotate.selectors.datasets import dataset_can_edit, dataset_get_visible
from annotate.selectors.human_eval import (
    eval_systems,
    output_campaign_get_by_token,
    output_campaign_get_for_rater,
    output_campaign_get_managed,
    output_campaign_progress,
    output_rater_progress,
    output_rating_display,
)
from annotate.services.human_eval.campaigns import (
    output_campaign_create,
    output_campaign_join,
    output_rating_next,
    output_rating_skip,
    output_rating_submit,
)

PAIRWISE_SCALE = ["A much better", "A better", "About the same", "B better", "B much better"]
LIKERT_QUESTION = "How good is this response to the message, in its context?"


class OutputCampaignForm(forms.Form):
    name = forms.CharField(max_length=200)
    mode = forms.ChoiceField(choices=OutputCampaignMode.choices)
    split = forms.ChoiceField(choices=SplitName.choices, initial=SplitName.TEST)
    systems = forms.ModelMultipleChoiceField(queryset=EvalSystem.objects.none())
    ratings_per_unit = forms.IntegerField(min_value=1, max_value=50, initial=3)
    instructions = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)

    def __init__(self, *args, systems: Any, **kwargs):
        super().__init__(*args, **kwargs)
        field: Any = self.fields["systems"]
        field.queryset = systems


@login_required
@require_http_methods(["GET", "POST"])
def output_campaign_new(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_visible(user=request.user, slug=slug)
    if not dataset_can_edit(user=request.user, dataset=dataset):
        raise PermissionDenied("Only the owner can start campaigns on this dataset.")
    form = OutputCampaignForm(request.POST or None, systems=eval_systems(dataset=dataset))
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        try:
            campaign = output_campaign_create(
                owner=request.user, dataset=dataset, systems=list(data.pop("systems")), **data
            )
        except ValidationError as exc:
            form.add_error(None, " ".join(exc.messages))
        else:
            messages.success(request, "Campaign created: share the join link with raters.")
            return redirect("output-campaign-dashboard", campaign_id=campaign.pk)
    return render(request, "annotate/output_campaigns/new.html", {"dataset": dataset, "form": form})


@login_required
def output_campaign_dashboard(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = output_campaign_get_managed(user=request.user, pk=campaign_id)
    join_url = request.build_absolute_uri(reverse("output-campaign-join", args=[campaign.token]))
    context = {
        "campaign": campaign,
        "progress": output_campaign_progress(campaign=campaign),
        "join_url": join_url,
    }
    return render(request, "annotate/output_campaigns/dashboard.html", context)


@login_required
def output_campaign_join_view(request: HttpRequest, token: str) -> HttpResponse:
    campaign = output_campaign_get_by_token(token=token)
    try:
        output_campaign_join(campaign=campaign, rater=cast(User, request.user))
    except ValidationError as exc:
        context = {"campaign": campaign, "error": " ".join(exc.messages)}
        return render(request, "annotate/output_campaigns/done.html", context, status=400)
    return redirect("output-campaign-rate", campaign_id=campaign.pk)


@login_required
def output_campaign_rate(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = output_campaign_get_for_rater(user=request.user, pk=campaign_id)
    rating = output_rating_next(campaign=campaign, rater=request.user)
    progress = output_rater_progress(campaign=campaign, rater=request.user)
    if rating is None:
        context = {"campaign": campaign, "progress": progress}
        return render(request, "annotate/output_campaigns/done.html", context)
    pairwise = campaign.mode == OutputCampaignMode.PAIRWISE
    labels = PAIRWISE_SCALE if pairwise else [""] * len(campaign.scale)
    context = {
        "campaign": campaign, "rating": rating, "pairwise": pairwise, "progress": progress,
        "shown": output_rating_display(rating=rating), "question": LIKERT_QUESTION,
        "scale": list(zip(campaign.scale, labels, strict=True)),
    }  # fmt: skip
    return render(request, "annotate/output_campaigns/rate.html", context)


@login_required
@require_POST
def output_campaign_answer(
    request: AuthenticatedRequest, campaign_id: int, rating_id: int
) -> HttpResponse:
    output_campaign_get_for_rater(user=request.user, pk=campaign_id)
    try:
        if request.POST.get("score"):
            raw = request.POST["score"]
            score = int(raw) if raw.isdigit() else -1
            output_rating_submit(rating_id=rating_id, rater=request.user, score=score)
        else:
            output_rating_skip(rating_id=rating_id, rater=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    return redirect("output-campaign-rate", campaign_id=campaign_id)
