"""A debounced or queued task can arrive after its object was deleted (an owner deletes a
campaign a second after the last rating): it then does nothing, instead of failing with an
error in the worker's log and the result store."""

from __future__ import annotations

import pytest

from annotate.datasets.tasks import dataset_compute_stats_task
from annotate.rating.tasks import (
    campaign_priorities_task,
    campaign_qc_task,
    campaign_weights_task,
    rater_qc_task,
)
from scoring.leaderboards.tasks import prepare_leaderboard_task

pytestmark = pytest.mark.django_db

GONE = 987_654  # an id no row has


@pytest.mark.parametrize(
    ("task", "args", "nothing"),
    [
        (campaign_weights_task, (GONE,), 0),
        (campaign_qc_task, (GONE,), 0),
        (campaign_priorities_task, (GONE,), 0),
        (rater_qc_task, (GONE, GONE), None),
        (dataset_compute_stats_task, (GONE,), {}),
        (prepare_leaderboard_task, (GONE,), []),
    ],
    ids=lambda value: getattr(value, "name", None),
)
def test_a_task_for_a_deleted_object_does_nothing(task, args, nothing):
    assert task(*args) == nothing


def test_the_tasks_of_a_deleted_campaign_do_nothing(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    campaign_id = campaign.pk
    campaign.delete()
    assert campaign_weights_task(campaign_id) == 0
    assert campaign_qc_task(campaign_id) == 0
    assert rater_qc_task(campaign_id, rater.pk) is None
