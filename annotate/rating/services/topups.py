"""Extra ratings for references whose raters disagree, within what the raters can give.

A reference whose counted ratings spread by `disagreement_sd` or more wants
`ratings_per_unit + extra_ratings_on_disagreement` ratings — but never more than its capacity
(places taken plus able raters who have not answered it, selectors/lifecycle.py): with two
raters a reference cannot get a third rating, and a target it cannot reach would keep the
campaign from completing. A rater who joins later raises the capacity, so joining tops up again.
`wanted` only grows here and never drops below `ratings_per_unit`.
"""

from __future__ import annotations

from annotate.rating.models import Campaign, Slot, Weight
from annotate.rating.selectors.lifecycle import able_rater_ids, slot_capacity


def _disagrees(campaign: Campaign, weight: Weight) -> bool:
    return weight.n >= 2 and weight.sd is not None and weight.sd >= campaign.disagreement_sd


def slot_top_up(*, campaign: Campaign, slot: Slot, weight: Weight) -> int:
    """Raise the slot's `wanted` if its ratings disagree; returns its `wanted`."""
    if not campaign.extra_ratings_on_disagreement or not _disagrees(campaign, weight):
        return slot.wanted
    target = campaign.ratings_per_unit + campaign.extra_ratings_on_disagreement
    slot.refresh_from_db(fields=["active", "wanted"])
    wanted = min(target, slot_capacity(campaign=campaign, slot=slot))
    if wanted > slot.wanted:
        Slot.objects.filter(pk=slot.pk, wanted__lt=wanted).update(wanted=wanted)
        slot.wanted = wanted
    return slot.wanted


def campaign_top_ups_refresh(*, campaign: Campaign) -> int:
    """Top up every disagreeing reference that is below its target (after a rater joined);
    returns how many slots were raised."""
    if not campaign.rates_references or not campaign.extra_ratings_on_disagreement:
        return 0
    target = campaign.ratings_per_unit + campaign.extra_ratings_on_disagreement
    weights = {
        w.reference_id: w
        for w in Weight.objects.filter(
            campaign=campaign, n__gte=2, sd__gte=campaign.disagreement_sd
        )
    }
    if not weights:
        return 0
    below = Slot.objects.filter(
        campaign=campaign, reference_id__in=list(weights), wanted__lt=target
    )
    able = able_rater_ids(campaign=campaign)
    raised = 0
    for slot in below:
        wanted = min(target, slot_capacity(campaign=campaign, slot=slot, able=able))
        raised += Slot.objects.filter(pk=slot.pk, wanted__lt=wanted).update(wanted=wanted)
    return raised
