"""Open ⇄ complete: the part of a campaign's status that its ratings decide.

Called wherever the answer can change — a rating, a skip or a flag lands, a rater finds nothing
left, joins, or is judged by quality control, slots are added — and cheap when the campaign is
busy (a live lease settles it in the read of the status itself; otherwise the rule's probes
follow). Reads, and a conditional UPDATE only when the status moves: it cannot loop, and two
callers at once agree.
"""

from __future__ import annotations

from django.utils import timezone

from annotate.rating.models import Campaign, CampaignStatus
from annotate.rating.selectors.lifecycle import campaign_status_read


def campaign_status_refresh(*, campaign: Campaign) -> str:
    """Move an open campaign to complete, or a complete one back to open, as its slots and
    raters now say; draft and closed stay. Returns the status (also set on `campaign`)."""
    # The stored status (the caller's copy may be stale) and the rule's answer: one read while
    # raters are at work.
    campaign.status, complete = campaign_status_read(campaign=campaign)
    if complete is None:  # a draft or a closed campaign stays as it is
        return campaign.status
    after = CampaignStatus.COMPLETE if complete else CampaignStatus.OPEN
    # Most calls change nothing (a rating lands in a campaign that stays open): no write. The
    # write is conditional on the status read, so a concurrent transition (the owner closing
    # the campaign, another caller completing it) is never overwritten; it is then read again.
    if campaign.status != after:
        moved = Campaign.objects.filter(pk=campaign.pk, status=campaign.status).update(
            status=after, status_changed_at=timezone.now()
        )
        statuses = Campaign.objects.filter(pk=campaign.pk).values_list("status", flat=True)
        campaign.status = after if moved else statuses.get()
    return campaign.status
