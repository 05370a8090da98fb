"""Writes to rating campaigns: creation, membership, the slots that drive assignment.

One creation path for every kind of campaign: a campaign on references gets a slot per
candidate reference; a campaign on outputs gets a slot per item and evaluated system (Likert),
or per item and pair of systems (pairwise), over the items every system involved has an output
for. `campaign_sync_slots` gives a slot to every unit that has none: it runs at creation, and
again after references or outputs are added.
"""

from __future__ import annotations

from itertools import combinations

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.crypto import salted_hmac

from annotate.accounts.models import Role
from annotate.accounts.services import profile_ensure
from annotate.datasets.models import Dataset, Reference
from annotate.judgments.models import EvalSystem, SystemOutput
from annotate.rating.models import (
    DEFAULT_ANCHORS,
    Campaign,
    CampaignRater,
    CampaignStatus,
    Mode,
    Slot,
    Subject,
)
from annotate.rating.services.adaptive import campaign_priorities_follow
from annotate.rating.services.status import campaign_status_refresh
from annotate.rating.services.topups import campaign_top_ups_refresh
from core.bulk import analyze_after_commit
from core.inserts import insert_checked

SLOT_BATCH = 2000  # rows per INSERT: large datasets without one statement per reference


def campaign_references(*, campaign: Campaign):
    references = Reference.objects.filter(item__split__dataset_id=campaign.dataset_id)
    if campaign.split_id:
        references = references.filter(item__split_id=campaign.split_id)
    return references


def _check_systems(dataset: Dataset, subject: str, mode: str, systems: list[EvalSystem]) -> None:
    if subject == Subject.REFERENCES:
        if mode != Mode.LIKERT:
            raise ValidationError(
                {"mode": "References are rated one at a time: pairwise compares system outputs."}
            )
        if systems:
            raise ValidationError({"systems": "A campaign on references rates no systems."})
        return
    if len(systems) < (2 if mode == Mode.PAIRWISE else 1):
        raise ValidationError(
            {"systems": "Choose the systems to evaluate (two or more for pairwise)."}
        )
    if any(system.dataset_id != dataset.pk for system in systems):
        raise ValidationError({"systems": "Every system must belong to the campaign's dataset."})


@transaction.atomic
def campaign_create(
    *,
    owner: User,
    dataset: Dataset,
    subject: str = Subject.REFERENCES,
    mode: str = Mode.LIKERT,
    systems: list[EvalSystem] | None = None,
    draft: bool = False,
    **fields: object,
) -> Campaign:
    """A campaign on the dataset's references or on evaluated systems' outputs (pairwise: every
    pair of `systems`), open at once or kept as a draft (nobody can join it before it opens)."""
    if dataset.owner_id != owner.pk and not owner.is_staff:
        raise PermissionDenied("Only the dataset's owner can start a campaign on it.")
    systems = list(systems or [])
    _check_systems(dataset, subject, mode, systems)
    if mode == Mode.PAIRWISE:
        fields.update(scale_min=1, scale_max=5, anchors=[])
    fields.setdefault("scale_min", dataset.scale_min)
    fields.setdefault("scale_max", dataset.scale_max)
    fields.setdefault("status", CampaignStatus.DRAFT if draft else CampaignStatus.OPEN)
    campaign = Campaign(owner=owner, dataset=dataset, subject=subject, mode=mode, **fields)
    if "anchors" not in fields and len(campaign.scale) != len(DEFAULT_ANCHORS):
        campaign.anchors = []  # the default labels name five points; other scales get none
    if campaign.split is not None and campaign.split.dataset_id != dataset.pk:
        raise ValidationError({"split": "That split belongs to another dataset."})
    if subject == Subject.OUTPUTS and campaign.split is None:
        raise ValidationError({"split": "Choose the split whose outputs are rated."})
    anchors = campaign.anchors or []
    if anchors and len(anchors) != campaign.scale_max - campaign.scale_min + 1:
        raise ValidationError({"anchors": "Give one label for each point of the scale."})
    _check_assignment(campaign)
    insert_checked(campaign)
    campaign.systems.set(systems)
    added = campaign_sync_slots(campaign=campaign)
    if subject == Subject.OUTPUTS and not added:
        raise ValidationError({"systems": "No item has outputs of the chosen systems here."})
    campaign_priorities_follow(campaign=campaign)
    return campaign


def _check_assignment(campaign: Campaign) -> None:
    if campaign.adaptive and not campaign.rates_references:
        raise ValidationError(
            {
                "assignment": "Adaptive assignment steers reference weights by the leaderboards: "
                "a campaign on outputs is uniform."
            }
        )


@transaction.atomic
def campaign_assignment_update(
    *,
    campaign: Campaign,
    user: User,
    assignment: str | None = None,
    uniform_share: float | None = None,
    rating_budget: int | None = None,
) -> Campaign:
    """Change how the campaign hands out work and how much it collects, while it runs; a
    budget reached (or raised) completes (or reopens) it at once."""
    if campaign.owner_id != user.pk and not user.is_staff:
        raise PermissionDenied("Only the campaign's owner changes its assignment.")
    locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
    changes = {
        "assignment": assignment,
        "uniform_share": uniform_share,
        "rating_budget": rating_budget,
    }
    for name, value in changes.items():
        if value is not None:
            setattr(locked, name, value)
    _check_assignment(locked)
    locked.full_clean()
    locked.save(update_fields=[name for name, value in changes.items() if value is not None])
    campaign_status_refresh(campaign=locked)
    campaign_priorities_follow(campaign=locked)
    return locked


def _reference_slots(campaign: Campaign) -> list[Slot]:
    have = Slot.objects.filter(campaign=campaign).values("reference_id")
    missing = (
        campaign_references(campaign=campaign).exclude(pk__in=have).values_list("pk", "item_id")
    )
    return [
        Slot(campaign=campaign, item_id=item_id, reference_id=pk, wanted=campaign.ratings_per_unit)
        for pk, item_id in missing.iterator()
    ]


def _items_with_outputs(campaign: Campaign, system_ids: list[int]) -> dict[int, set[int]]:
    rows = SystemOutput.objects.filter(
        system_id__in=system_ids, split=campaign.split_name, item__split=campaign.split
    ).values_list("system_id", "item_id")
    have: dict[int, set[int]] = {}
    for system_id, item_id in rows:
        have.setdefault(system_id, set()).add(item_id)
    return have


def _output_slots(campaign: Campaign) -> list[Slot]:
    system_ids = sorted(campaign.systems.values_list("pk", flat=True))
    have = _items_with_outputs(campaign, system_ids)
    existing = set(
        Slot.objects.filter(campaign=campaign).values_list("item_id", "system_a_id", "system_b_id")
    )
    units: list[tuple[int, int | None]] = (
        list(combinations(system_ids, 2))
        if campaign.pairwise
        else [(system_id, None) for system_id in system_ids]
    )
    slots: list[Slot] = []
    for a, b in units:
        items = have.get(a, set()) if b is None else have.get(a, set()) & have.get(b, set())
        slots.extend(
            Slot(
                campaign=campaign,
                item_id=item_id,
                system_a_id=a,
                system_b_id=b,
                wanted=campaign.ratings_per_unit,
            )
            for item_id in sorted(items)
            if (item_id, a, b) not in existing
        )
    return slots


def campaign_sync_slots(*, campaign: Campaign) -> int:
    """A slot for every unit of the campaign that has none; returns how many were added."""
    slots = _reference_slots(campaign) if campaign.rates_references else _output_slots(campaign)
    Slot.objects.bulk_create(slots, batch_size=SLOT_BATCH)
    analyze_after_commit(Slot, rows=len(slots))
    return len(slots)


def campaign_join(*, campaign: Campaign, rater: User, crowd_id: str = "") -> CampaignRater:
    """Make the user a rater of the campaign (joining again changes nothing). A new rater can
    give more: disagreeing references are topped up, and a complete campaign opens again."""
    if campaign.status == CampaignStatus.CLOSED:
        raise ValidationError("This campaign is closed.")
    if campaign.status == CampaignStatus.DRAFT:
        raise ValidationError("This campaign has not been opened yet.")
    profile_ensure(user=rater)
    membership, created = CampaignRater.objects.get_or_create(
        campaign=campaign, rater=rater, defaults={"crowd_id": crowd_id}
    )
    if created:
        campaign_top_ups_refresh(campaign=campaign)
        # A rater who has answered nothing can only reopen a complete campaign, never complete
        # an open one (every short slot is open to them): only a complete one is looked at.
        campaign.refresh_from_db(fields=["status"])
        if campaign.status == CampaignStatus.COMPLETE:
            campaign_status_refresh(campaign=campaign)
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
    # Made whole in one insert: a session's check reads the password, so setting it afterwards
    # logged out the participant's other tab that arrived at the same moment.
    user, _ = User.objects.get_or_create(
        username=username, defaults={"password": make_password(None)}
    )
    profile_ensure(user=user, role=Role.RATER, crowd_id=participant_id)
    campaign_join(campaign=campaign, rater=user, crowd_id=participant_id)
    return user
