"""Writes to rating campaigns: creation, membership, the slots that drive assignment."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.crypto import salted_hmac

from annotate.models import Dataset, Reference, Role
from annotate.models.rating import Campaign, CampaignRater, CampaignStatus, ReferenceSlot
from annotate.services.accounts import profile_ensure

SLOT_BATCH = 2000  # rows per INSERT: large datasets without one statement per reference


def campaign_references(*, campaign: Campaign):
    references = Reference.objects.filter(item__split__dataset_id=campaign.dataset_id)
    if campaign.split_id:
        references = references.filter(item__split_id=campaign.split_id)
    return references


@transaction.atomic
def campaign_create(*, owner: User, dataset: Dataset, **fields: object) -> Campaign:
    if dataset.owner_id != owner.pk and not owner.is_staff:
        raise PermissionDenied("Only the dataset's owner can start a campaign on it.")
    fields.setdefault("scale_min", dataset.scale_min)
    fields.setdefault("scale_max", dataset.scale_max)
    campaign = Campaign(owner=owner, dataset=dataset, **fields)
    if campaign.split is not None and campaign.split.dataset_id != dataset.pk:
        raise ValidationError({"split": "That split belongs to another dataset."})
    anchors = campaign.anchors or []
    if anchors and len(anchors) != campaign.scale_max - campaign.scale_min + 1:
        raise ValidationError({"anchors": "Give one label for each point of the scale."})
    campaign.full_clean()
    campaign.save()
    campaign_sync_slots(campaign=campaign)
    return campaign


def campaign_sync_slots(*, campaign: Campaign) -> int:
    """A slot for every reference of the campaign that has none (references added later too)."""
    have = ReferenceSlot.objects.filter(campaign=campaign).values("reference_id")
    missing = (
        campaign_references(campaign=campaign).exclude(pk__in=have).values_list("pk", flat=True)
    )
    slots = [
        ReferenceSlot(campaign=campaign, reference_id=pk, wanted=campaign.ratings_per_reference)
        for pk in missing.iterator()
    ]
    ReferenceSlot.objects.bulk_create(slots, batch_size=SLOT_BATCH)
    return len(slots)


def campaign_join(*, campaign: Campaign, rater: User, crowd_id: str = "") -> CampaignRater:
    """Make the user a rater of the campaign (joining again changes nothing)."""
    if campaign.status == CampaignStatus.CLOSED:
        raise ValidationError("This campaign is closed.")
    profile_ensure(user=rater)
    membership, _ = CampaignRater.objects.get_or_create(
        campaign=campaign, rater=rater, defaults={"crowd_id": crowd_id}
    )
    return membership


def crowd_username(*, campaign: Campaign, participant_id: str) -> str:
    """The username of a crowd participant's account in this campaign."""
    # Keyed, so a participant id cannot be recovered from the username by hashing guesses.
    digest = salted_hmac(
        "deltableu.crowd-username",
        f"{campaign.token}:{participant_id.strip()}",
        algorithm="sha256",
    ).hexdigest()[:16]
    return f"crowd-{digest}"


def crowd_rater_get_or_create(*, campaign: Campaign, participant_id: str) -> User:
    """The anonymous account of a crowd participant (Prolific-style id), made on first arrival."""
    participant_id = participant_id.strip()
    if not participant_id or len(participant_id) > 100:
        raise ValidationError(
            {"PROLIFIC_PID": "A participant id of 1 to 100 characters is needed."}
        )
    username = crowd_username(campaign=campaign, participant_id=participant_id)
    user, created = User.objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
        profile = profile_ensure(user=user)
        profile.role = Role.RATER
        profile.crowd_id = participant_id
        profile.save(update_fields=["role", "crowd_id"])
    campaign_join(campaign=campaign, rater=user, crowd_id=participant_id)
    return user
