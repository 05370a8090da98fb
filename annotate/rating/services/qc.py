"""Quality control of raters: the verdict, and what follows from it for weights and assignment.

A failed rater's ratings are kept but stop counting: they leave the weights, and their places in
the references' slots are freed so assignment tops those references up with other raters. A later
pass (say the owner relaxed a threshold) counts them again. Running it twice changes nothing.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotate.rating.models import (
    Campaign,
    CampaignRater,
    QCStatus,
    Rating,
    RatingKind,
    RatingStatus,
)
from annotate.rating.qc_math import STRAIGHTLINE_MIN_RATINGS, Answer, Thresholds, assess
from annotate.rating.services.places import slot_places_move
from annotate.rating.services.status import campaign_status_refresh
from annotate.rating.services.weights import weights_recompute_campaign


def campaign_thresholds(campaign: Campaign) -> Thresholds:
    # Without degraded controls (none mixed in, or a pairwise campaign) waiting for them would
    # keep every verdict pending forever.
    degraded = campaign.mixes_degraded_texts
    # Then the other checks decide, once the rater has answered enough (or all there is).
    answers = 0 if degraded else min(STRAIGHTLINE_MIN_RATINGS, campaign.slots.count())
    return Thresholds(
        min_seconds=campaign.qc_min_seconds,
        max_straightline=campaign.qc_max_straightline,
        alpha=campaign.qc_alpha,
        min_controls=campaign.qc_min_controls if degraded else 0,
        max_repeat_difference=campaign.qc_max_repeat_difference,
        min_answers=answers,
    )


def rater_answers(*, campaign: Campaign, rater_id: int) -> list[Answer]:
    """The rater's answers, oldest first; a pair's answer as seen from system A (1 … 5, 5: A
    much better), so that a repeat shown the other way round compares like with like."""
    rows = (
        Rating.objects.filter(campaign=campaign, rater_id=rater_id, status=RatingStatus.DONE)
        .order_by("finished_at", "pk")
        .values_list("kind", "slot_id", "score", "preference", "started_at", "finished_at")
    )
    return [
        Answer(
            kind,
            slot_id,
            round(3 + preference) if preference is not None else score,
            (finished - started).total_seconds(),
        )
        for kind, slot_id, score, preference, started, finished in rows
        if score is not None and finished is not None  # a done rating has both
    ]


def _set_counted(campaign: Campaign, rater_id: int, counted: bool) -> int:
    """Count (or stop counting) the rater's normal ratings; slots follow, one place each."""
    changing = (
        Rating.objects.select_for_update(of=("self",))
        .order_by("pk")
        .filter(
            campaign=campaign,
            rater_id=rater_id,
            kind=RatingKind.NORMAL,
            status=RatingStatus.DONE,
            counted=not counted,
        )
    )
    rows = list(changing.values_list("pk", "slot_id"))
    if not rows:
        return 0
    Rating.objects.filter(pk__in=[pk for pk, _ in rows]).update(counted=counted)
    step = 1 if counted else -1
    slot_places_move(slot_ids=[slot_id for _, slot_id in rows], by=step)
    return len(rows)


def rater_qc_evaluate(*, campaign: Campaign, rater: User) -> CampaignRater:
    """Judge the rater on their answers so far and apply the verdict (idempotent)."""
    with transaction.atomic():
        membership, changed = _verdict_applied(campaign, rater)
    # After the verdict's transaction, not in it: recomputing the campaign's weights takes
    # seconds on a large campaign, and on SQLite a transaction holds the write lock throughout.
    if changed and campaign.rates_references:
        weights_recompute_campaign(campaign_id=campaign.pk)
    # An excluded rater's places are free again, and they can give no more: either way the
    # campaign may move between open and complete.
    campaign_status_refresh(campaign=campaign)
    return membership


def _verdict_applied(campaign: Campaign, rater: User) -> tuple[CampaignRater, int]:
    """The rater's membership with the verdict saved, and how many ratings changed count."""
    # Locked so that two evaluations of the same rater cannot both move the slot counts.
    membership = CampaignRater.objects.select_for_update(of=("self",)).get(
        campaign=campaign, rater=rater
    )
    verdict = assess(
        rater_answers(campaign=campaign, rater_id=rater.pk), campaign_thresholds(campaign)
    )
    changed = _set_counted(campaign, rater.pk, counted=verdict.status != QCStatus.FAILED)
    membership.qc_status = verdict.status
    membership.qc_reasons = verdict.reasons
    membership.qc_details = verdict.details
    membership.qc_checked_at = timezone.now()
    membership.save(update_fields=["qc_status", "qc_reasons", "qc_details", "qc_checked_at"])
    return membership, changed


def rater_qc_settle(*, campaign: Campaign, rater: User) -> None:
    """Judge a rater whose work just ended, unless a verdict is in: their completion code waits
    on it, and the check queued after their last answer may not have run yet. Called by the POST
    that finds nothing left for them, never by the page that shows the code (a GET)."""
    pending = CampaignRater.objects.filter(
        campaign=campaign, rater=rater, qc_status=QCStatus.PENDING
    ).exists()
    if pending:
        rater_qc_evaluate(campaign=campaign, rater=rater)


def campaign_qc_evaluate(*, campaign_id: int) -> int:
    """Judge every rater of the campaign again, e.g. after its thresholds changed."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return 0  # deleted after its task was sent: nobody to judge
    raters = User.objects.filter(campaign_memberships__campaign=campaign)
    for rater in raters:
        rater_qc_evaluate(campaign=campaign, rater=rater)
    return raters.count()
