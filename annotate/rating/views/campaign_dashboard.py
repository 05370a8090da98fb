"""The owner's campaign dashboard (progress, agreement, raters, then weights or results), the
export of its ratings and the check of its participants' completion codes (owner and staff
only)."""

from __future__ import annotations

from collections.abc import Iterator

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods

from annotate.rating.forms import CampaignAssignmentForm, CompletionCodesForm
from annotate.rating.models import Campaign
from annotate.rating.selectors.agreement import campaign_agreement
from annotate.rating.selectors.assignment import assignment_overview
from annotate.rating.selectors.campaigns import campaign_get_managed, campaign_progress
from annotate.rating.selectors.completion import completion_codes_check
from annotate.rating.selectors.dashboard import (
    flagged_units,
    raters_overview,
    ratings_per_hour,
    weight_values,
    widest_disagreement,
)
from annotate.rating.selectors.ratings_export import ratings_csv_lines, ratings_jsonl_lines
from annotate.rating.selectors.results import campaign_results
from annotate.rating.services.lifecycle import campaign_actions
from core.auth_request import AuthenticatedRequest
from core.plots import Spec, histogram, hourly_counts

WEIGHT_BINS = 20


def _charts(campaign: Campaign) -> dict[str, Spec]:
    charts = {
        "hourly_chart": hourly_counts(
            ratings_per_hour(campaign=campaign), title="Answers per hour", y_title="Answers"
        ),
    }
    if campaign.rates_references:
        charts["weights_chart"] = histogram(
            weight_values(campaign=campaign),
            bins=WEIGHT_BINS,
            title="Weights of references",
            x_title="Weight (−1 to +1)",
            y_title="References",
        )
    return charts


def _findings(campaign: Campaign) -> dict[str, object]:
    """Weights and assignment for a campaign on references; results for one on outputs."""
    if campaign.rates_references:
        return {
            "widest": widest_disagreement(campaign=campaign),
            "assignment": assignment_overview(campaign=campaign),
            "assignment_form": CampaignAssignmentForm(instance=campaign),
        }
    return {"results": campaign_results(campaign=campaign)}


def _crowd_links(request: AuthenticatedRequest, campaign: Campaign) -> dict[str, str]:
    join = request.build_absolute_uri(reverse("campaign-join", args=[campaign.token]))
    return {"join_url": join, "crowd_url": f"{join}?{urlencode({'PROLIFIC_PID': ''})}"}


@login_required
def campaign_dashboard(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
    agreement = campaign_agreement(campaign=campaign)
    context = {
        "campaign": campaign,
        "progress": campaign_progress(campaign=campaign),
        "actions": campaign_actions(campaign),
        "agreement": agreement,
        "raters": raters_overview(campaign=campaign, agreement=agreement),
        "flagged": flagged_units(campaign=campaign),
        **_findings(campaign),
        **_charts(campaign),
        **_crowd_links(request, campaign),
    }
    return render(request, "annotate/campaigns/dashboard.html", context)


def _download(lines: Iterator[str], content_type: str, filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
def campaign_ratings_csv(request: AuthenticatedRequest, campaign_id: int) -> StreamingHttpResponse:
    campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
    lines = ratings_csv_lines(campaign=campaign)
    return _download(lines, "text/csv; charset=utf-8", f"campaign-{campaign.pk}-ratings.csv")


@login_required
def campaign_ratings_jsonl(
    request: AuthenticatedRequest, campaign_id: int
) -> StreamingHttpResponse:
    campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
    lines = ratings_jsonl_lines(campaign=campaign)
    return _download(
        lines, "application/jsonl; charset=utf-8", f"campaign-{campaign.pk}-ratings.jsonl"
    )


@login_required
@require_http_methods(["GET", "POST"])
def campaign_codes(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
    form = CompletionCodesForm(request.POST or None)
    checks = None
    if request.method == "POST" and form.is_valid():
        checks = completion_codes_check(campaign=campaign, entries=form.cleaned_data["lines"])
    context = {"campaign": campaign, "form": form, "checks": checks}
    return render(request, "annotate/campaigns/codes.html", context)
