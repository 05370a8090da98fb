"""Open ⇄ complete: the part of a campaign's status that its ratings decide.

Called wherever the answer can change — a rating, a skip or a flag lands, a rater finds nothing
left, joins, or is judged by quality control, slots are added — and cheap when the campaign is
busy (a live lease settles it at once). One conditional UPDATE per call: it cannot loop, and two
callers at once agree.
"""

from __future__ import annotations

from django.utils import timezone

from annotate.rating.models import Campaign, CampaignStatus
from annotate.rating.selectors.lifecycle import campaign_is_complete


def campaign_status_refresh(*, campaign: Campaign) -> str:
    """Move an open campaign to complete, or a complete one back to open, as its slots and
    raters now say; draft and closed stay. Returns the status (also set on `campaign`)."""
    if campaign.status not in (CampaignStatus.OPEN, CampaignStatus.COMPLETE):
        return campaign.status
    complete = campaign_is_complete(campaign=campaign)
    before, after = (
        (CampaignStatus.OPEN, CampaignStatus.COMPLETE)
        if complete
        else (CampaignStatus.COMPLETE, CampaignStatus.OPEN)
    )
    Campaign.objects.filter(pk=campaign.pk, status=before).update(
        status=after, status_changed_at=timezone.now()
    )
    campaign.status = Campaign.objects.values_list("status", flat=True).get(pk=campaign.pk)
    return campaign.status
