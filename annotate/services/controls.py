"""Quality-control items mixed into a rater's work: bad references and repeats.

A bad reference is built from a reference the rater has already rated well (an original reply
when there is one): either a phrase of it is replaced by a phrase of another conversation's
reply, or it is swapped for that other reply outright. Quality control later checks that the
rater scores the degraded versions lower than the ones they came from (a one-sided
Mann–Whitney test). A repeat serves a reference the rater rated earlier, to check consistency.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
from django.contrib.auth.models import User
from django.db.models import Case, IntegerField, Value, When

from annotate.models import Origin, Reference
from annotate.models.rating import Campaign, Rating, RatingKind, RatingStatus

FIRST_CONTROL_AFTER = 3  # a rater needs rated references before a control can be built on them
REPEAT_DISTANCE = 3  # repeat only references rated at least this many ratings ago


def control_kind_due(*, campaign: Campaign, rater: User, finished: int) -> str | None:
    """Which control, if any, the rater's next item should be (every 1/rate-th item)."""
    if campaign.control_rate <= 0 or finished < FIRST_CONTROL_AFTER:
        return None
    period = max(2, round(1 / campaign.control_rate))
    if (finished + 1) % period:
        return None
    controls = Rating.objects.filter(campaign=campaign, rater=rater).exclude(kind=RatingKind.NORMAL)
    return RatingKind.BAD_REFERENCE if controls.count() % 2 == 0 else RatingKind.REPEAT


def _rng(campaign: Campaign, rater: User, finished: int) -> np.random.Generator:
    # Seeded by who and when, so a control can be rebuilt and audited.
    return np.random.default_rng([campaign.pk, rater.pk, finished])


def degrade(base: str, donor: str, rng: np.random.Generator) -> str:
    """A phrase of `base` replaced by one of `donor`, or `donor` itself for short texts."""
    tokens, donor_tokens = base.split(), donor.split()
    if len(tokens) < 4 or rng.random() < 0.5:
        return donor
    length = max(2, len(tokens) // 3)
    start = int(rng.integers(0, len(tokens) - length + 1))
    if len(donor_tokens) <= length:
        span = donor_tokens
    else:
        at = int(rng.integers(0, len(donor_tokens) - length + 1))
        span = donor_tokens[at : at + length]
    degraded = " ".join(tokens[:start] + span + tokens[start + length :])
    return degraded if degraded != base else donor


def _bad_reference(
    campaign: Campaign, rater: User, rng: np.random.Generator, now: datetime
) -> Rating | None:
    used = Rating.objects.filter(
        campaign=campaign, rater=rater, kind=RatingKind.BAD_REFERENCE
    ).values("reference_id")
    bases = list(
        Rating.objects.filter(
            campaign=campaign, rater=rater, kind=RatingKind.NORMAL, status=RatingStatus.DONE
        )
        .exclude(reference_id__in=used)
        .annotate(
            not_original=Case(
                When(reference__origin=Origin.ORIGINAL, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
        .order_by("not_original", "-score")
        .values_list("reference_id", "reference__text", "reference__item_id")[:5]
    )
    if not bases:
        return None
    reference_id, text, item_id = bases[int(rng.integers(0, len(bases)))]
    donors = Reference.objects.filter(
        item__split__dataset_id=campaign.dataset_id, origin=Origin.ORIGINAL
    ).exclude(item_id=item_id)
    count = donors.count()
    if count == 0:
        donors = Reference.objects.filter(item__split__dataset_id=campaign.dataset_id).exclude(
            item_id=item_id
        )
        count = donors.count()
    if count == 0:
        return None
    donor = donors.order_by("pk")[int(rng.integers(0, count))]
    return Rating.objects.create(
        campaign=campaign,
        reference_id=reference_id,
        rater=rater,
        kind=RatingKind.BAD_REFERENCE,
        control_text=degrade(text, donor.text, rng),
        donor=donor,
        started_at=now,
        lease_expires_at=now + timedelta(minutes=campaign.lease_minutes),
    )


def _repeat(
    campaign: Campaign, rater: User, rng: np.random.Generator, now: datetime
) -> Rating | None:
    repeated = Rating.objects.filter(campaign=campaign, rater=rater, kind=RatingKind.REPEAT).values(
        "reference_id"
    )
    done = Rating.objects.filter(
        campaign=campaign, rater=rater, kind=RatingKind.NORMAL, status=RatingStatus.DONE
    ).exclude(reference_id__in=repeated)
    eligible = list(done.order_by("finished_at").values_list("reference_id", flat=True))
    eligible = eligible[: max(0, len(eligible) - REPEAT_DISTANCE)]
    if not eligible:
        return None
    return Rating.objects.create(
        campaign=campaign,
        reference_id=eligible[int(rng.integers(0, len(eligible)))],
        rater=rater,
        kind=RatingKind.REPEAT,
        started_at=now,
        lease_expires_at=now + timedelta(minutes=campaign.lease_minutes),
    )


def control_create(
    *, campaign: Campaign, rater: User, kind: str, finished: int, now: datetime
) -> Rating | None:
    """Lease a control item of `kind` to the rater, or None when none can be built yet."""
    rng = _rng(campaign, rater, finished)
    if kind == RatingKind.BAD_REFERENCE:
        return _bad_reference(campaign, rater, rng, now)
    return _repeat(campaign, rater, rng, now)
