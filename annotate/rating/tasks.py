"""Celery tasks of rating campaigns: thin wrappers that take ids and call one service."""

from __future__ import annotations

from celery import shared_task

from annotate.rating.selectors.campaigns import campaign_member
from annotate.rating.services.adaptive import (
    PRIORITIES_TASK,
    campaign_priorities_refresh,
    priorities_refresh_stale,
)
from annotate.rating.services.assignment import leases_reclaim
from annotate.rating.services.qc import campaign_qc_evaluate, rater_qc_evaluate
from annotate.rating.services.ratings import RATER_QC_TASK, WEIGHTS_TASK
from annotate.rating.services.weights import weights_recompute_campaign


@shared_task(name=WEIGHTS_TASK)
def campaign_weights_task(campaign_id: int) -> int:
    return weights_recompute_campaign(campaign_id=campaign_id)


@shared_task(name="annotate.rating.tasks.leases_reclaim")
def leases_reclaim_task() -> int:
    return leases_reclaim()


@shared_task(name=RATER_QC_TASK)
def rater_qc_task(campaign_id: int, rater_id: int) -> str | None:
    membership = campaign_member(campaign_id=campaign_id, rater_id=rater_id)
    if membership is None:
        return None  # the campaign or the rater is gone: nothing to judge
    return rater_qc_evaluate(campaign=membership.campaign, rater=membership.rater).qc_status


@shared_task(name="annotate.rating.tasks.campaign_qc")
def campaign_qc_task(campaign_id: int) -> int:
    return campaign_qc_evaluate(campaign_id=campaign_id)


@shared_task(name=PRIORITIES_TASK)
def campaign_priorities_task(campaign_id: int) -> int:
    return campaign_priorities_refresh(campaign_id=campaign_id)


@shared_task(name="annotate.rating.tasks.priorities_sweep")
def priorities_sweep_task() -> int:
    return priorities_refresh_stale()
