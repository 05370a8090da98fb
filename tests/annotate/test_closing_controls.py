"""Quality control gets the degraded texts its verdict waits for, whatever the share or the work.

At the defaults (one control in ten, alternating degraded texts and repeats, three degraded
texts before a verdict) a crowd participant's share of 20 holds one degraded text, and a rater
who rates all of a small campaign a few: their verdict, and so a crowd participant's completion
code, never came. Now the last items of a share are the missing degraded texts, and a rater whose
work is over gets the missing ones built on what they rated.
"""

import io
import json
from datetime import timedelta

import pytest
from django.db.models import F

from annotate.datasets.services.datasets import dataset_import_file
from annotate.rating.models import Rating, RatingKind, RatingStatus
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_join
from annotate.rating.services.qc import rater_qc_evaluate
from annotate.rating.services.ratings import rating_submit

pytestmark = pytest.mark.django_db


def dataset_with(make_dataset, items: int, refs_per_item: int = 3):
    dataset = make_dataset(data=None)
    lines = [
        json.dumps(
            {
                "id": f"i{i}",
                "message": f"message number {i} about the weather today",
                "references": [
                    {"text": f"reply {i}.{k} says the weather is fine and sunny"}
                    for k in range(refs_per_item)
                ],
            }
        )
        for i in range(items)
    ]
    dataset_import_file(dataset=dataset, lines=io.BytesIO("\n".join(lines).encode()), fmt="jsonl")
    return dataset


def answer_all(campaign, rater) -> list[Rating]:
    """Answer whatever assignment gives (degraded texts low, the rest high) until it gives
    nothing; the ratings in order, answered at a human pace."""
    answered = []
    while (lease := rating_next(campaign=campaign, rater=rater)) is not None:
        score = 1 if lease.kind == RatingKind.BAD_REFERENCE else 4 + len(answered) % 2
        rating_submit(rating_id=lease.pk, rater=rater, score=score)
        answered.append(lease)
        assert len(answered) < 200, "assignment never ends"
    Rating.objects.filter(rater=rater).update(started_at=F("finished_at") - timedelta(seconds=9))
    return answered


def kinds(ratings) -> list[str]:
    return [r.kind for r in ratings]


def test_a_crowd_share_at_the_defaults_holds_the_degraded_texts_qc_waits_for(
    make_campaign, make_dataset, make_rater
):
    campaign = make_campaign(dataset=dataset_with(make_dataset, items=10), control_rate=0.1)
    assert (campaign.ratings_per_rater, campaign.qc_min_controls) == (20, 3)
    participant = make_rater()
    campaign_join(campaign=campaign, rater=participant, crowd_id="PROLIFIC-1")
    answered = answer_all(campaign, participant)
    assert len(answered) == 20  # the share, no more
    assert kinds(answered).count(RatingKind.BAD_REFERENCE) == 3
    assert kinds(answered)[-2:] == [RatingKind.BAD_REFERENCE] * 2  # the last of the share
    membership = rater_qc_evaluate(campaign=campaign, rater=participant)
    assert (membership.qc_status, membership.qc_reasons) == ("passed", [])


def test_a_rater_who_rated_all_there_is_gets_the_missing_degraded_texts_then_nothing(
    make_campaign, make_dataset, make_rater
):
    campaign = make_campaign(
        dataset=dataset_with(make_dataset, items=2), control_rate=0.1, ratings_per_unit=1
    )
    rater = make_rater(campaign)
    answered = answer_all(campaign, rater)
    assert kinds(answered)[:9] == [RatingKind.NORMAL] * 6 + [RatingKind.BAD_REFERENCE] * 3
    assert kinds(answered)[9:] == [RatingKind.REPEAT]  # the tenth item, as always
    assert rating_next(campaign=campaign, rater=rater) is None
    membership = rater_qc_evaluate(campaign=campaign, rater=rater)
    assert membership.qc_status == "passed"


def test_skipped_degraded_texts_are_replaced_until_no_rated_unit_is_left_to_build_on(
    make_campaign, make_dataset, make_rater
):
    campaign = make_campaign(
        dataset=dataset_with(make_dataset, items=2), control_rate=0.1, ratings_per_unit=1
    )
    rater = make_rater(campaign)
    for _ in range(6):
        lease = rating_next(campaign=campaign, rater=rater)
        rating_submit(rating_id=lease.pk, rater=rater, score=4)
    skipped = []
    while (lease := rating_next(campaign=campaign, rater=rater)) is not None:
        Rating.objects.filter(pk=lease.pk).update(status=RatingStatus.SKIPPED)
        skipped.append(lease)
        assert len(skipped) < 20, "closing controls never end"
    # One degraded text per rated unit: six units, six tries, and then it ends.
    degraded = [r.slot_id for r in skipped if r.kind == RatingKind.BAD_REFERENCE]
    assert len(degraded) == len(set(degraded)) == 6
    assert rater_qc_evaluate(campaign=campaign, rater=rater).qc_status == "pending"


def test_campaigns_without_degraded_texts_get_no_closing_controls(
    make_campaign, make_dataset, make_rater
):
    campaign = make_campaign(dataset=dataset_with(make_dataset, items=2), ratings_per_unit=1)
    rater = make_rater(campaign)
    assert kinds(answer_all(campaign, rater)) == [RatingKind.NORMAL] * 6
