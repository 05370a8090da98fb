"""Weights of references from their counted ratings (raw and z-normalised)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from django.db import transaction
from django.utils import timezone

from annotate.rating.models import Campaign, Weight
from annotate.rating.selectors.campaigns import (
    counted_rating_rows,
    counted_ratings,
    in_rating_order,
)
from annotate.rating.weights_math import summarise, values_by_reference, weight_of
from core.bulk import update_by_pk

RAW_FIELDS = ["n", "mean", "sd", "weight", "ci_low", "ci_high", "scores_seen"]

# Rows per INSERT/UPDATE of a recompute: longer statements save nothing more (SQLite caps the
# parameters of one statement lower still).
WRITE_BATCH = 500


def scores_key(scores: Iterable[int]) -> str:
    """How `Weight.scores_seen` spells a sequence of scores."""
    return ",".join(str(score) for score in scores)


def _raw_fields(scores: Sequence[int], campaign: Campaign) -> dict[str, object]:
    fields: dict[str, object] = dict(summarise(scores, campaign.scale_min, campaign.scale_max))
    fields["scores_seen"] = scores_key(scores)
    return fields


def weight_recompute(*, campaign: Campaign, reference_id: int) -> Weight:
    """The raw weight of one reference, written in the caller's transaction; the returned row
    holds the raw fields (its z_weight, kept in the database, is not read back).

    One upsert (INSERT … ON CONFLICT DO UPDATE) on every rating: `update_or_create` took six
    statements (two savepoints, a locking read, the write), and two raters' first ratings of
    a reference at once are merged by the database instead of one failing on the unique key.
    """
    ratings = counted_ratings(campaign=campaign).filter(slot__reference_id=reference_id)
    scores = list(in_rating_order(ratings).values_list("score", flat=True))
    weight = Weight(campaign=campaign, reference_id=reference_id, **_raw_fields(scores, campaign))
    Weight.objects.bulk_create(
        [weight],
        update_conflicts=True,
        unique_fields=["campaign", "reference"],
        update_fields=[*RAW_FIELDS, "updated_at"],
    )
    return weight


def _per_reference(
    rows: list[tuple[int, int, int]], campaign: Campaign
) -> tuple[dict[int, list[int]], dict[int, float]]:
    """Each reference's scores in rating order, and its z-weight (from every rater's scores)."""
    lo, hi = campaign.scale_min, campaign.scale_max
    scores, z_values = values_by_reference(rows, lo, hi)
    return scores, {ref: weight_of(float(np.mean(z)), lo, hi) for ref, z in z_values.items()}


def weights_recompute_campaign(*, campaign_id: int, full: bool = False) -> int:
    """Bring a campaign's weights up to date; returns how many references have counted ratings.

    Raw fields (n … ci_high, each with its bootstrap) are recomputed only for references whose
    counted scores differ from their `scores_seen`, or all of them with `full`. z_weight depends
    on every score of the campaign — each rater's mean and SD and the pooled mean and SD, which
    move with almost any rating — so it is computed for every reference from the same single
    read and written where it changed. Queries: three reads, then one per batch of writes.

    Read and computed outside any transaction of its own (each bootstrap costs milliseconds,
    thousands of references seconds; on SQLite a transaction holds the one write lock from its
    start, and every rater's answer would wait), then written in one short transaction.
    """
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return 0  # deleted after its debounced task was sent: no weights to bring up to date
    # Weights before ratings: a rating committed in between is then newer than what was stored,
    # and its reference is recomputed now rather than at the next run.
    stored = {
        reference_id: (pk, seen, z)
        for pk, reference_id, seen, z in Weight.objects.filter(campaign=campaign).values_list(
            "pk", "reference_id", "scores_seen", "z_weight"
        )
    }
    rows = counted_rating_rows(campaign=campaign)
    scores, z_weights = _per_reference(rows, campaign)
    now = timezone.now()
    new, changed, z_only = [], [], []
    for reference_id in stored.keys() | scores.keys():
        mine, z = scores.get(reference_id, []), z_weights.get(reference_id)
        pk, seen, stored_z = stored.get(reference_id, (None, None, None))
        if pk is None:
            fields = _raw_fields(mine, campaign)
            new.append(Weight(campaign=campaign, reference_id=reference_id, z_weight=z, **fields))
        elif full or seen != scores_key(mine):
            fields = _raw_fields(mine, campaign)
            changed.append(Weight(pk=pk, z_weight=z, updated_at=now, **fields))
        elif stored_z != z:
            z_only.append(Weight(pk=pk, z_weight=z, updated_at=now))
    with transaction.atomic():
        # A rater's first rating of a reference may create its row meanwhile; theirs stands.
        Weight.objects.bulk_create(new, batch_size=WRITE_BATCH, ignore_conflicts=True)
        update_by_pk(Weight, changed, [*RAW_FIELDS, "z_weight", "updated_at"], WRITE_BATCH)
        update_by_pk(Weight, z_only, ["z_weight", "updated_at"], WRITE_BATCH)
    return len(scores)
