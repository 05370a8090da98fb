"""The owner's moves in a campaign's lifecycle, and new references joining open campaigns.

draft → open (slots are brought up to date) → complete (the ratings decide, services/status.py)
→ closed (no new leases; live ones may still be answered until they expire) → open again.
Deleting a campaign drops its ratings and weights for good, so it takes the campaign's name.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ProtectedError, RestrictedError
from django.utils import timezone

from annotate.datasets.selectors.deletion import deletion_blockers
from annotate.rating.models import Campaign, CampaignStatus, Subject
from annotate.rating.selectors.lifecycle import campaign_deletion_refusal
from annotate.rating.services.campaigns import campaign_sync_slots
from annotate.rating.services.status import campaign_status_refresh
from core.errors import Conflict

# action → (the statuses it leaves, the status it reaches)
TRANSITIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "open": ((CampaignStatus.DRAFT, CampaignStatus.CLOSED), CampaignStatus.OPEN),
    "close": ((CampaignStatus.OPEN, CampaignStatus.COMPLETE), CampaignStatus.CLOSED),
}


def campaign_actions(campaign: Campaign) -> list[str]:
    """The owner's moves from the campaign's present status."""
    return [name for name, (sources, _) in TRANSITIONS.items() if campaign.status in sources]


@transaction.atomic
def campaign_transition(*, campaign: Campaign, action: str) -> Campaign:
    """Open (a draft, or a closed campaign again) or close a campaign."""
    if action not in TRANSITIONS:
        raise ValidationError({"action": f"Use one of: {', '.join(TRANSITIONS)}."})
    sources, target = TRANSITIONS[action]
    # Conditional: of two clicks at once, one moves the campaign and the other is told why not.
    moved = Campaign.objects.filter(pk=campaign.pk, status__in=sources).update(
        status=target, status_changed_at=timezone.now()
    )
    campaign.refresh_from_db()
    if not moved:
        status = campaign.get_status_display().lower()
        if campaign.status == target:
            raise ValidationError({"action": f"The campaign is {status} already."})
        article = "An" if status[0] in "aeiou" else "A"
        raise ValidationError({"action": f"{article} {status} campaign cannot {action}."})
    if target == CampaignStatus.OPEN:
        campaign_sync_slots(campaign=campaign)
        campaign_status_refresh(campaign=campaign)
    return campaign


def campaign_delete(*, campaign: Campaign, confirm: str) -> None:
    """Delete the campaign with its slots, ratings and weights (releases keep their copies).
    Raises Conflict, deleting nothing, while something keeps it (a study reading it)."""
    if confirm.strip() != campaign.name:
        raise ValidationError(
            {"confirm": f"Type the campaign's name ({campaign.name}) to confirm the deletion."}
        )
    blockers = deletion_blockers(root=campaign)
    if not blockers:
        try:
            campaign.delete()
            return
        except (ProtectedError, RestrictedError):  # one appeared since: named, as above
            blockers = deletion_blockers(root=campaign)
    raise Conflict(campaign_deletion_refusal(campaign=campaign, blockers=blockers))


def dataset_campaigns_sync(*, dataset_id: int) -> int:
    """Slots for new references in every open or complete campaign on the dataset (a complete
    one opens again: its new references want ratings). Returns how many slots were added."""
    added = 0
    campaigns = Campaign.objects.filter(
        dataset_id=dataset_id,
        subject=Subject.REFERENCES,
        status__in=(CampaignStatus.OPEN, CampaignStatus.COMPLETE),
    ).select_related("split")
    for campaign in campaigns:
        with transaction.atomic():
            new = campaign_sync_slots(campaign=campaign)
            if new:
                campaign_status_refresh(campaign=campaign)
        added += new
    return added
