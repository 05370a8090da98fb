"""Campaigns that rate system outputs, with the reference campaigns' machinery: slots with a
wanted count, leases locked with SKIP LOCKED, expired leases reclaimed, and quality control by
`qc_math.assess` (speed and straight-lining; output campaigns have no planted controls).

Pairwise slots show system A on the left or the right at random, per rating; the side is
stored, and the answer is turned into a preference for A on −2 … +2.
"""

from __future__ import annotations

import random
from datetime import timedelta
from itertools import combinations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from annotate.models import (
    Dataset,
    EvalSystem,
    OutputCampaign,
    OutputCampaignMode,
    OutputCampaignRater,
    OutputRating,
    OutputSlot,
    RatingStatus,
    SystemOutput,
)
from annotate.qc_math import Answer, Thresholds, assess
from core.dispatch import dispatch_debounced


@transaction.atomic
def output_campaign_create(
    *,
    owner: User,
    dataset: Dataset,
    name: str,
    systems: list[EvalSystem],
    split: str = "test",
    mode: str = OutputCampaignMode.LIKERT,
    pairs: list[tuple[int, int]] | None = None,
    **fields: object,
) -> OutputCampaign:
    """A campaign over the items every involved system has an output for (and the dataset
    has). Pairwise campaigns compare `pairs` (system ids), by default every pair."""
    if len(systems) < (2 if mode == OutputCampaignMode.PAIRWISE else 1):
        raise ValidationError("Choose the systems to evaluate (two or more for pairwise).")
    if any(s.dataset_id != dataset.pk for s in systems):
        raise ValidationError("Every system must belong to the campaign's dataset.")
    campaign = OutputCampaign.objects.create(
        owner=owner, dataset=dataset, name=name, split=split, mode=mode, **fields
    )
    campaign.systems.set(systems)
    rated = OutputSlot.objects.bulk_create(_slots(campaign, systems, pairs))
    if not rated:
        raise ValidationError("No item has outputs of the chosen systems in this dataset.")
    return campaign


def _outputs_by_system(campaign: OutputCampaign, systems: list[EvalSystem]) -> dict:
    rows = SystemOutput.objects.filter(
        system__in=systems, split=campaign.split, item__isnull=False
    ).values_list("system_id", "item_id")
    out: dict[int, set[int]] = {}
    for system_id, item_id in rows:
        out.setdefault(system_id, set()).add(item_id)
    return out


def _slots(campaign: OutputCampaign, systems: list[EvalSystem], pairs) -> list[OutputSlot]:
    have = _outputs_by_system(campaign, systems)
    wanted = campaign.ratings_per_unit
    if campaign.mode == OutputCampaignMode.LIKERT:
        units = [(s.pk, None) for s in systems]
    else:
        units = list(pairs or combinations([s.pk for s in systems], 2))
    slots = []
    for a, b in units:
        items = have.get(a, set()) & (have.get(b, set()) if b else have.get(a, set()))
        for item_id in sorted(items):
            slots.append(
                OutputSlot(
                    campaign=campaign, item_id=item_id, system_a_id=a, system_b_id=b, wanted=wanted
                )
            )
    return slots


def output_campaign_join(*, campaign: OutputCampaign, rater: User) -> OutputCampaignRater:
    if not campaign.is_open:
        raise ValidationError("This campaign is closed.")
    membership, _ = OutputCampaignRater.objects.get_or_create(campaign=campaign, rater=rater)
    return membership


def _reclaim(campaign: OutputCampaign, now) -> None:
    expired = OutputRating.objects.select_for_update(skip_locked=True, of=("self",)).filter(
        campaign=campaign, status=RatingStatus.LEASED, lease_expires_at__lte=now
    )
    for rating in expired.order_by("pk"):
        OutputSlot.objects.filter(pk=rating.slot_id).update(active=F("active") - 1)
        rating.delete()


@transaction.atomic
def output_rating_next(*, campaign: OutputCampaign, rater: User) -> OutputRating | None:
    """The rater's live lease, or a new one on the least-rated slot they have not rated."""
    membership = (
        OutputCampaignRater.objects.select_for_update(of=("self",))
        .filter(campaign=campaign, rater=rater)
        .order_by("pk")
        .first()
    )
    if membership is None:
        raise ValidationError("Join the campaign first.")
    now = timezone.now()
    current = OutputRating.objects.filter(
        campaign=campaign, rater=rater, status=RatingStatus.LEASED, lease_expires_at__gt=now
    ).first()
    if current is not None or not campaign.is_open:
        return current
    _reclaim(campaign, now)
    rated = OutputRating.objects.filter(slot_id=OuterRef("pk"), rater=rater)
    slot = (
        OutputSlot.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(campaign=campaign, active__lt=F("wanted"))
        .filter(~Exists(rated))
        .order_by("active", "pk")
        .first()
    )
    if slot is None:
        return None
    OutputSlot.objects.filter(pk=slot.pk).update(active=F("active") + 1)
    return OutputRating.objects.create(
        campaign=campaign,
        slot=slot,
        rater=rater,
        started_at=now,
        a_on_left=slot.system_b_id is None or random.random() < 0.5,
        lease_expires_at=now + timedelta(minutes=campaign.lease_minutes),
    )


def _locked(rating_id: int, rater: User) -> OutputRating:
    rating = (
        OutputRating.objects.select_for_update(of=("self",))
        .select_related("campaign")
        .filter(pk=rating_id, rater=rater)
        .first()
    )
    if rating is None:
        raise ValidationError("This item is not yours, or its lease ran out and was reclaimed.")
    return rating


def preference_for_a(score: int, a_on_left: bool) -> float:
    """1 = left much better … 5 = right much better → A's preference on −2 … +2."""
    left = 3.0 - score
    return left if a_on_left else -left


@transaction.atomic
def output_rating_submit(*, rating_id: int, rater: User, score: int) -> OutputRating:
    rating = _locked(rating_id, rater)
    if rating.status == RatingStatus.DONE and rating.score == score:
        return rating
    if rating.status != RatingStatus.LEASED:
        raise ValidationError("This item was already answered.")
    scale = rating.campaign.scale
    if not isinstance(score, int) or score not in scale:
        raise ValidationError({"score": f"Give a whole number from {scale[0]} to {scale[-1]}."})
    rating.score = score
    if rating.campaign.mode == OutputCampaignMode.PAIRWISE:
        rating.preference = preference_for_a(score, rating.a_on_left)
    rating.status = RatingStatus.DONE
    rating.finished_at = timezone.now()
    rating.lease_expires_at = None
    rating.save()
    _qc_after_commit(rating)
    return rating


# A rater answering every few seconds needs one QC run per burst, not one per answer.
QC_DEBOUNCE_SECONDS = 2


# The task that runs output_rater_qc (annotate/tasks.py registers it under this name).
OUTPUT_QC_TASK = "annotate.tasks.output_rater_qc"


def _qc_after_commit(rating: OutputRating) -> None:
    def send() -> None:
        campaign, rater = rating.campaign_id, rating.rater_id
        dispatch_debounced(
            f"output-rater-qc-{campaign}-{rater}",
            QC_DEBOUNCE_SECONDS,
            OUTPUT_QC_TASK,
            campaign,
            rater,
        )

    transaction.on_commit(send)


@transaction.atomic
def output_rating_skip(*, rating_id: int, rater: User) -> OutputRating:
    rating = _locked(rating_id, rater)
    if rating.status != RatingStatus.LEASED:
        raise ValidationError("This item was already answered.")
    rating.status = RatingStatus.SKIPPED
    rating.finished_at = timezone.now()
    rating.lease_expires_at = None
    rating.save()
    OutputSlot.objects.filter(pk=rating.slot_id).update(active=F("active") - 1)
    return rating


@transaction.atomic
def output_rater_qc(*, campaign: OutputCampaign, rater: User) -> OutputCampaignRater:
    """Judge a rater on speed and straight-lining; a failed rater's ratings stop counting."""
    membership = OutputCampaignRater.objects.select_for_update().get(campaign=campaign, rater=rater)
    done = OutputRating.objects.filter(campaign=campaign, rater=rater, status=RatingStatus.DONE)
    answers = [
        Answer("normal", r.slot_id, r.score or 0, (r.finished_at - r.started_at).total_seconds())
        for r in done.order_by("finished_at") if r.finished_at
    ]  # fmt: skip
    thresholds = Thresholds(
        min_seconds=campaign.qc_min_seconds,
        max_straightline=campaign.qc_max_straightline,
        alpha=0.1,
        min_controls=10**6,
        max_repeat_difference=10.0,
    )
    verdict = assess(answers, thresholds)
    done.update(counted=verdict.status != "failed")
    membership.qc_status, membership.qc_reasons = verdict.status, verdict.reasons
    membership.save(update_fields=["qc_status", "qc_reasons"])
    return membership
