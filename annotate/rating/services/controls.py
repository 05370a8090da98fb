"""Quality-control items mixed into a rater's work: degraded texts and repeats.

A degraded text is built from a unit the rater has already rated well (for references, an
original reply when there is one): either a phrase of its text is replaced by a phrase of
another item's text of the same kind, or it is swapped for that text outright. Quality control
later checks that the rater scores the degraded versions lower than the ones they came from (a
one-sided Mann–Whitney test). A repeat serves a unit the rater rated earlier, to check
consistency. Pairwise campaigns get repeats only: a degraded pair has no single text to spoil.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
from django.contrib.auth.models import User
from django.db.models import Case, IntegerField, QuerySet, Value, When

from annotate.datasets.models import Origin, Reference
from annotate.judgments.models import SystemOutput
from annotate.rating.models import Campaign, Rating, RatingKind, RatingStatus, Slot

FIRST_CONTROL_AFTER = 3  # a rater needs rated units before a control can be built on them
REPEAT_DISTANCE = 3  # repeat only units rated at least this many ratings ago


def bad_references_missing(*, campaign: Campaign, rater: User) -> int:
    """Degraded texts the rater must still score before quality control can decide (0 where
    the campaign mixes none in: services/qc.py then waits for none)."""
    if not campaign.mixes_degraded_texts:
        return 0
    scored = Rating.objects.filter(
        campaign=campaign, rater=rater, kind=RatingKind.BAD_REFERENCE, status=RatingStatus.DONE
    ).count()
    return max(0, campaign.qc_min_controls - scored)


def control_kind_due(
    *, campaign: Campaign, rater: User, finished: int, quota: int = 0
) -> str | None:
    """Which control, if any, the rater's next item should be: every 1/rate-th item, and the
    last items of a crowd participant's share (`quota`) when quality control still waits for
    that many degraded texts (at one in ten, a share of 20 holds one, and the verdict, so the
    completion code, would never come)."""
    if campaign.control_rate <= 0 or finished < FIRST_CONTROL_AFTER:
        return None
    # The count is asked only near the share's end (at most qc_min_controls can be missing):
    # this runs on every request for work.
    left = quota - finished
    if (
        quota
        and left <= campaign.qc_min_controls
        and left <= bad_references_missing(campaign=campaign, rater=rater)
    ):
        return RatingKind.BAD_REFERENCE
    period = max(2, round(1 / campaign.control_rate))
    if (finished + 1) % period:
        return None
    if campaign.pairwise:
        return RatingKind.REPEAT
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


def _done_normal(campaign: Campaign, rater: User):
    return Rating.objects.filter(
        campaign=campaign, rater=rater, kind=RatingKind.NORMAL, status=RatingStatus.DONE
    )


def _base_candidates(campaign: Campaign, rater: User) -> list[tuple[int, int, str | None]]:
    """(slot id, item id, reference text or None) of well-rated units not yet degraded."""
    used = Rating.objects.filter(
        campaign=campaign, rater=rater, kind=RatingKind.BAD_REFERENCE
    ).values("slot_id")
    done = _done_normal(campaign, rater).exclude(slot_id__in=used)
    if campaign.rates_references:
        # Originals first: a degraded human reply is the clearest contrast.
        done = done.annotate(
            not_original=Case(
                When(slot__reference__origin=Origin.ORIGINAL, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        ).order_by("not_original", "-score")
    else:
        done = done.order_by("-score")
    return list(done.values_list("slot_id", "slot__item_id", "slot__reference__text")[:5])


def _output_text(campaign: Campaign, slot_id: int) -> str:
    slot = Slot.objects.get(pk=slot_id)
    output = SystemOutput.objects.filter(
        system_id=slot.system_a_id, item_id=slot.item_id, split=campaign.split_name
    ).first()
    return output.text if output else ""


def _donor(campaign: Campaign, item_id: int, rng: np.random.Generator) -> tuple[int, str] | None:
    """Another item's text of the same kind: an original reference (else any reference), or an
    output of one of the campaign's systems."""
    donors: QuerySet[Reference] | QuerySet[SystemOutput]
    if campaign.rates_references:
        pool = Reference.objects.filter(item__split__dataset_id=campaign.dataset_id)
        originals = pool.filter(origin=Origin.ORIGINAL).exclude(item_id=item_id)
        donors = originals if originals.exists() else pool.exclude(item_id=item_id)
    else:
        donors = SystemOutput.objects.filter(
            system__in=campaign.systems.all(), item__isnull=False, split=campaign.split_name
        ).exclude(item_id=item_id)
    count = donors.count()
    if count == 0:
        return None
    donor = donors.order_by("pk").values_list("item_id", "text")[int(rng.integers(0, count))]
    return donor[0], donor[1]


def _bad_text(
    campaign: Campaign, rater: User, rng: np.random.Generator, now: datetime
) -> Rating | None:
    bases = _base_candidates(campaign, rater)
    if not bases:
        return None
    slot_id, item_id, reference_text = bases[int(rng.integers(0, len(bases)))]
    text = reference_text if reference_text is not None else _output_text(campaign, slot_id)
    donor = _donor(campaign, item_id, rng)
    if donor is None or not text:
        return None
    return Rating.objects.create(
        campaign=campaign,
        slot_id=slot_id,
        rater=rater,
        kind=RatingKind.BAD_REFERENCE,
        control_text=degrade(text, donor[1], rng),
        donor_item_id=donor[0],
        started_at=now,
        lease_expires_at=now + timedelta(minutes=campaign.lease_minutes),
    )


def _repeat(
    campaign: Campaign, rater: User, rng: np.random.Generator, now: datetime
) -> Rating | None:
    repeated = Rating.objects.filter(campaign=campaign, rater=rater, kind=RatingKind.REPEAT).values(
        "slot_id"
    )
    done = _done_normal(campaign, rater).exclude(slot_id__in=repeated)
    eligible = list(done.order_by("finished_at").values_list("slot_id", "a_on_left"))
    eligible = eligible[: max(0, len(eligible) - REPEAT_DISTANCE)]
    if not eligible:
        return None
    slot_id, a_on_left = eligible[int(rng.integers(0, len(eligible)))]
    return Rating.objects.create(
        campaign=campaign,
        slot_id=slot_id,
        rater=rater,
        kind=RatingKind.REPEAT,
        # A pair repeats on the other sides: a rater who always presses "left" shows up.
        a_on_left=not a_on_left if campaign.pairwise else a_on_left,
        started_at=now,
        lease_expires_at=now + timedelta(minutes=campaign.lease_minutes),
    )


def closing_control_create(
    *, campaign: Campaign, rater: User, finished: int, now: datetime
) -> Rating | None:
    """When the rater's work is over (share done, nothing left for them, budget spent) while
    quality control still waits for degraded texts: lease one more, built on what they rated,
    so that a verdict can come. None when none is missing or none can be built; each is built
    on a unit not degraded before, so this ends."""
    if not bad_references_missing(campaign=campaign, rater=rater):
        return None
    rng = _rng(campaign, rater, finished)
    return _bad_text(campaign, rater, rng, now)


def control_create(
    *, campaign: Campaign, rater: User, kind: str, finished: int, now: datetime
) -> Rating | None:
    """Lease a control item of `kind` to the rater, or None when none can be built yet."""
    rng = _rng(campaign, rater, finished)
    if kind == RatingKind.BAD_REFERENCE:
        return _bad_text(campaign, rater, rng, now)
    return _repeat(campaign, rater, rng, now)
