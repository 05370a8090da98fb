"""Weights of references from their counted ratings (raw and z-normalised)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from django.db import transaction

from annotate.models.rating import Campaign, Weight
from annotate.selectors.campaigns import counted_ratings
from annotate.weights_math import summarise, weight_of, z_rescaled


def weight_recompute(*, campaign: Campaign, reference_id: int) -> Weight:
    """The raw weight of one reference, written in the caller's transaction."""
    scores = list(
        counted_ratings(campaign=campaign)
        .filter(reference_id=reference_id)
        .values_list("score", flat=True)
    )
    fields = summarise(scores, campaign.scale_min, campaign.scale_max)
    weight, _ = Weight.objects.update_or_create(
        campaign=campaign, reference_id=reference_id, defaults=fields
    )
    return weight


@transaction.atomic
def weights_recompute_campaign(*, campaign_id: int) -> int:
    """Every weight of a campaign, raw and z-normalised (z depends on all of a rater's scores)."""
    campaign = Campaign.objects.get(pk=campaign_id)
    rows = list(counted_ratings(campaign=campaign).values_list("reference_id", "rater_id", "score"))
    by_reference: dict[int, list[int]] = defaultdict(list)
    for reference_id, _, score in rows:
        by_reference[reference_id].append(score)
    z_by_reference: dict[int, list[float]] = defaultdict(list)
    if rows:
        data = np.array(rows, dtype=float)
        rescaled = z_rescaled(data[:, 2], data[:, 1], campaign.scale_min, campaign.scale_max)
        for reference_id, value in zip(data[:, 0].astype(int), rescaled, strict=True):
            z_by_reference[int(reference_id)].append(float(value))
    stale = Weight.objects.filter(campaign=campaign).exclude(reference_id__in=by_reference)
    stale.update(n=0, mean=None, sd=None, weight=None, ci_low=None, ci_high=None, z_weight=None)
    for reference_id, scores in by_reference.items():
        fields = summarise(scores, campaign.scale_min, campaign.scale_max)
        z_mean = float(np.mean(z_by_reference[reference_id]))
        fields["z_weight"] = weight_of(z_mean, campaign.scale_min, campaign.scale_max)
        Weight.objects.update_or_create(
            campaign=campaign, reference_id=reference_id, defaults=fields
        )
    return len(by_reference)
