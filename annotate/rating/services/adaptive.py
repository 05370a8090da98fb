"""Adaptive assignment: each slot's sensitivity, from the leaderboards that use the dataset.

The boards live on a higher floor (scoring), so they report through sources registered at
start-up (sensitivity_sources.py): a source takes a dataset id and returns, per live reference
id, Σ_pairs closeness · (∂Δ/∂w)² over the close pairs of its boards. This service combines
that with the campaign's own ratings (each reference's rating variance, the rating model's
a = σ²/τ²) into `Slot.sensitivity` and
`Campaign.adaptive_a`, from which the assignment query ranks slots as ratings land
(adaptive_math.py). Without any board to learn from every sensitivity is 0 and the order is the
uniform one: the fewest ratings first.
"""

from __future__ import annotations

import logging
from datetime import timedelta

import numpy as np
from django.db import transaction
from django.db.models import F, Max, Q, QuerySet
from django.utils import timezone

from annotate.rating.adaptive_math import (
    rating_model,
    reference_variances,
    sensitivities,
)
from annotate.rating.models import Assignment, Campaign, CampaignStatus, RatingStatus, Slot
from annotate.rating.selectors.campaigns import campaign_rating_values
from annotate.rating.sensitivity_sources import dataset_sensitivity_report
from core.bulk import update_by_pk
from core.dispatch import dispatch_debounced

log = logging.getLogger(__name__)

PRIORITIES_TASK = "annotate.rating.tasks.campaign_priorities"
# Sensitivities change with the boards and, slowly, with each reference's variance: a burst of
# ratings shares one refresh (the value of the next rating follows each count at once anyway).
PRIORITIES_DEBOUNCE_SECONDS = 10
WRITE_BATCH = 500
# The sweep refreshes a campaign at least this often: a board's new score reaches it even if
# the task its landing sent was lost.
MAX_AGE_SECONDS = 15 * 60


def campaign_priorities_refresh(*, campaign_id: int) -> int:
    """Work out every slot's sensitivity of an adaptive campaign; returns how many changed."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None or not campaign.adaptive:
        return 0  # deleted, or switched back to uniform meanwhile
    report = dataset_sensitivity_report(dataset_id=campaign.dataset_id)
    values = campaign_rating_values(campaign=campaign, variant="raw")
    slots = list(
        Slot.objects.filter(campaign=campaign).values_list("pk", "reference_id", "sensitivity")
    )
    pools = [values.get(reference_id or 0, []) for _, reference_id, _ in slots]
    model = rating_model(pools)
    terms = np.array([report.terms.get(reference_id or 0, 0.0) for _, reference_id, _ in slots])
    new = sensitivities(
        terms, reference_variances(pools, model), campaign.scale_min, campaign.scale_max
    )
    changed = [
        Slot(pk=pk, sensitivity=float(value))
        for (pk, _, stored), value in zip(slots, new, strict=True)
        if stored != float(value)
    ]
    with transaction.atomic():
        update_by_pk(Slot, changed, ["sensitivity"], WRITE_BATCH)
        summary = {
            "boards": report.boards,
            "references_that_matter": int(np.count_nonzero(new)),
            "sigma2": model.sigma2,
            "tau2": model.tau2,
        }
        Campaign.objects.filter(pk=campaign.pk).update(
            adaptive_a=model.a, priorities_refreshed_at=timezone.now(), priorities_summary=summary
        )
    log.info("campaign %s: %d slot sensitivities changed", campaign.pk, len(changed))
    return len(changed)


def campaign_priorities_follow(*, campaign: Campaign) -> None:
    """After the transaction commits, refresh an adaptive campaign's priorities (debounced)."""
    if not campaign.adaptive:
        return
    campaign_id = campaign.pk
    transaction.on_commit(
        lambda: dispatch_debounced(
            f"campaign-priorities-{campaign_id}",
            PRIORITIES_DEBOUNCE_SECONDS,
            PRIORITIES_TASK,
            campaign_id,
        )
    )


def dataset_priorities_follow(*, dataset_id: int) -> int:
    """A board of the dataset changed (a score landed): refresh its adaptive campaigns."""
    campaigns = list(
        Campaign.objects.filter(
            dataset_id=dataset_id,
            assignment=Assignment.ADAPTIVE,
            status__in=(CampaignStatus.OPEN, CampaignStatus.COMPLETE, CampaignStatus.DRAFT),
        )
    )
    for campaign in campaigns:
        campaign_priorities_follow(campaign=campaign)
    return len(campaigns)


def stale_adaptive_campaign_ids() -> QuerySet[Campaign, int]:
    """Adaptive campaigns that take ratings and were never refreshed, not since their last
    rating, or not for MAX_AGE_SECONDS (a debounced task lost with a worker or the broker, or
    a board's score whose landing sent nothing): ids, in one query."""
    old_enough = timezone.now() - timedelta(seconds=MAX_AGE_SECONDS)
    return (
        Campaign.objects.filter(
            assignment=Assignment.ADAPTIVE,
            status__in=(CampaignStatus.OPEN, CampaignStatus.COMPLETE),
        )
        .annotate(
            last_rating=Max("ratings__finished_at", filter=Q(ratings__status=RatingStatus.DONE))
        )
        .filter(
            Q(priorities_refreshed_at__isnull=True)
            | Q(priorities_refreshed_at__lt=old_enough)
            | Q(last_rating__gt=F("priorities_refreshed_at"))
        )
        .values_list("pk", flat=True)
    )


def priorities_refresh_stale() -> int:
    """The sweep: refresh every stale adaptive campaign (`stale_adaptive_campaign_ids`)."""
    campaign_ids = list(stale_adaptive_campaign_ids())
    for campaign_id in campaign_ids:
        campaign_priorities_refresh(campaign_id=campaign_id)
    return len(campaign_ids)
