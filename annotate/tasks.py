"""Celery tasks of the annotation side: thin wrappers that take ids and call one service."""

from __future__ import annotations

from celery import shared_task
from django.db.models import F, Q

from annotate.models import Dataset, OutputCampaignRater
from annotate.models.rating import CampaignRater
from annotate.services.assignment import leases_reclaim
from annotate.services.datasets import STATS_TASK, dataset_compute_stats
from annotate.services.human_eval.campaigns import OUTPUT_QC_TASK, output_rater_qc
from annotate.services.qc import campaign_qc_evaluate, rater_qc_evaluate
from annotate.services.ratings import RATER_QC_TASK, WEIGHTS_TASK
from annotate.services.weights import weights_recompute_campaign


@shared_task(name=STATS_TASK)
def dataset_compute_stats_task(dataset_id: int) -> dict[str, object]:
    return dataset_compute_stats(dataset_id=dataset_id)


@shared_task(name="annotate.tasks.datasets_refresh_stale_stats")
def datasets_refresh_stale_stats() -> int:
    stale = Dataset.objects.filter(
        Q(stats_updated_at__isnull=True) | Q(stats_updated_at__lt=F("updated_at"))
    ).values_list("pk", flat=True)
    for dataset_id in stale:
        dataset_compute_stats(dataset_id=dataset_id)
    return len(stale)


@shared_task(name=WEIGHTS_TASK)
def campaign_weights_task(campaign_id: int) -> int:
    return weights_recompute_campaign(campaign_id=campaign_id)


@shared_task(name="annotate.tasks.leases_reclaim")
def leases_reclaim_task() -> int:
    return leases_reclaim()


@shared_task(name=RATER_QC_TASK)
def rater_qc_task(campaign_id: int, rater_id: int) -> str | None:
    membership = (
        CampaignRater.objects.select_related("campaign", "rater")
        .filter(campaign_id=campaign_id, rater_id=rater_id)
        .first()
    )
    if membership is None:
        return None  # the campaign or the rater is gone: nothing to judge
    return rater_qc_evaluate(campaign=membership.campaign, rater=membership.rater).qc_status


@shared_task(name=OUTPUT_QC_TASK)
def output_rater_qc_task(campaign_id: int, rater_id: int) -> str | None:
    membership = (
        OutputCampaignRater.objects.select_related("campaign", "rater")
        .filter(campaign_id=campaign_id, rater_id=rater_id)
        .first()
    )
    if membership is None:  # the rater or the campaign was deleted meanwhile
        return None
    return output_rater_qc(campaign=membership.campaign, rater=membership.rater).qc_status


@shared_task(name="annotate.tasks.campaign_qc")
def campaign_qc_task(campaign_id: int) -> int:
    return campaign_qc_evaluate(campaign_id=campaign_id)
