"""Reads of human evaluation: who may see what, outputs, and per-item human scores."""

from __future__ import annotations

from collections import defaultdict

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, QuerySet, Sum

from annotate.models import (
    Dataset,
    EvalSystem,
    Judgment,
    JudgmentSet,
    OutputCampaign,
    OutputCampaignMode,
    OutputCampaignRater,
    OutputRating,
    RatingStatus,
    SystemOutput,
)
from core.errors import NotFound


def _manages(user: User | AnonymousUser, owner_id: int) -> bool:
    return user.is_authenticated and (user.is_staff or owner_id == user.pk)


def judgment_set_get_managed(*, user: User | AnonymousUser, pk: int) -> JudgmentSet:
    found = JudgmentSet.objects.select_related("dataset").filter(pk=pk).first()
    if found is None or not _manages(user, found.dataset.owner_id):
        raise NotFound("No such set of judgments.")
    return found


def output_campaign_get_managed(*, user: User | AnonymousUser, pk: int) -> OutputCampaign:
    found = OutputCampaign.objects.select_related("dataset").filter(pk=pk).first()
    if found is None or not _manages(user, found.owner_id):
        raise NotFound("No such campaign.")
    return found


def output_campaigns_managed(
    *, user: User, dataset: Dataset | None = None
) -> QuerySet[OutputCampaign]:
    campaigns = OutputCampaign.objects.select_related("dataset")
    if dataset is not None:
        campaigns = campaigns.filter(dataset=dataset)
    return campaigns if user.is_staff else campaigns.filter(owner=user)


def output_campaigns_of_dataset(*, user: User, dataset: Dataset) -> QuerySet[OutputCampaign]:
    """The user's campaigns on the dataset, with their systems (a list names them)."""
    return output_campaigns_managed(user=user, dataset=dataset).prefetch_related("systems")


def output_campaign_get_for_rater(*, user: User | AnonymousUser, pk: int) -> OutputCampaign:
    if not user.is_authenticated:
        raise NotFound("No such campaign.")
    membership = OutputCampaignRater.objects.filter(campaign_id=pk, rater=user).first()
    if membership is None:
        raise NotFound("No such campaign.")
    return membership.campaign


def output_rater_done(*, campaign: OutputCampaign, rater: User) -> int:
    return OutputRating.objects.filter(
        campaign=campaign, rater=rater, status=RatingStatus.DONE
    ).count()


def eval_outputs(*, dataset: Dataset, split: str) -> dict[str, dict[str, str]]:
    """system name → {item external id: output}."""
    out: dict[str, dict[str, str]] = defaultdict(dict)
    rows = SystemOutput.objects.filter(system__dataset=dataset, split=split).values_list(
        "system__name", "external_id", "text"
    )
    for system, item_id, text in rows.iterator():
        out[system][item_id] = text
    return dict(out)


def eval_systems(*, dataset: Dataset) -> QuerySet[EvalSystem]:
    return EvalSystem.objects.filter(dataset=dataset)


def judgment_means(*, judgment_set: JudgmentSet, criterion: str) -> dict[tuple[str, str], float]:
    """(system name, item id) → the judges' mean score on `criterion`."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    rows = Judgment.objects.filter(judgment_set=judgment_set, criterion=criterion).values_list(
        "system__name", "external_id", "score"
    )
    for system, item_id, score in rows.iterator():
        cell = sums[(system, item_id)]
        cell[0] += score
        cell[1] += 1
    return {key: total / n for key, (total, n) in sums.items()}


def campaign_means(*, campaign: OutputCampaign) -> dict[tuple, float]:
    """Likert: (system, item id) → mean score. Pairwise: (system A, system B, item id) → mean
    preference for A (−2 … +2). Only counted ratings (quality control) are used."""
    sums: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0.0])
    rows = OutputRating.objects.filter(
        campaign=campaign, status=RatingStatus.DONE, counted=True
    ).values_list(
        "slot__system_a__name",
        "slot__system_b__name",
        "slot__item__external_id",
        "score",
        "preference",
    )
    pairwise = campaign.mode == OutputCampaignMode.PAIRWISE
    for a, b, item_id, score, preference in rows.iterator():
        key = (a, b, item_id) if pairwise else (a, item_id)
        cell = sums[key]
        value = preference if pairwise else score
        if value is None:
            continue
        cell[0] += value
        cell[1] += 1
    return {key: total / n for key, (total, n) in sums.items()}


def output_campaign_get_by_token(*, token: str) -> OutputCampaign:
    found = OutputCampaign.objects.select_related("dataset").filter(token=token).first()
    if found is None:
        raise NotFound("No such campaign.")
    return found


def output_rater_progress(*, campaign: OutputCampaign, rater: User) -> dict[str, int]:
    """The rater's answers, and the campaign's answers against the ratings it wants."""
    return {
        "done": output_rater_done(campaign=campaign, rater=rater),
        "campaign_done": OutputRating.objects.filter(
            campaign=campaign, status=RatingStatus.DONE
        ).count(),
        "campaign_total": campaign.slots.aggregate(n=Sum("wanted"))["n"] or 0,
    }


def output_campaign_progress(*, campaign: OutputCampaign) -> dict:
    """For the owner: overall progress and each rater's answers with the QC verdict."""
    counts = dict(
        OutputRating.objects.filter(campaign=campaign, status=RatingStatus.DONE)
        .values("rater_id")
        .annotate(n=Count("pk"))
        .values_list("rater_id", "n")
    )
    raters = OutputCampaignRater.objects.filter(campaign=campaign).select_related("rater")
    overall = output_rater_progress(campaign=campaign, rater=campaign.owner)
    rows = [
        {"rater": m.rater.username, "done": counts.get(m.rater_id, 0),
         "qc_status": m.qc_status, "qc_reasons": m.qc_reasons}
        for m in raters.order_by("joined_at")
    ]  # fmt: skip
    return {
        "done": overall["campaign_done"],
        "total": overall["campaign_total"],
        "slots": campaign.slots.count(),
        "raters": rows,
    }


def output_rating_display(*, rating: OutputRating) -> dict:
    """What the rater sees: the item and the output(s), left and right in the recorded order."""
    slot = rating.slot
    systems = [s for s in (slot.system_a_id, slot.system_b_id) if s is not None]
    texts = dict(
        SystemOutput.objects.filter(
            system_id__in=systems, split=rating.campaign.split, item_id=slot.item_id
        ).values_list("system_id", "text")
    )
    shown = [texts.get(s, "") for s in systems]
    if len(shown) == 2 and not rating.a_on_left:
        shown.reverse()
    return {"context": slot.item.context, "message": slot.item.message, "outputs": shown}
