"""Quality control in the database: verdicts, exclusion from weights, top-up, restore, the task."""

from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.db.models import F
from django.utils import timezone

from annotate.datasets.models import Item, Reference
from annotate.rating.models import CampaignRater, Rating, RatingKind, Slot, Weight
from annotate.rating.selectors.lifecycle import rater_nothing_left
from annotate.rating.selectors.rater import campaigns_of_rater
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_sync_slots
from annotate.rating.services.qc import campaign_qc_evaluate, rater_qc_evaluate
from annotate.rating.services.ratings import rating_submit
from annotate.rating.tasks import rater_qc_task

pytestmark = pytest.mark.django_db


def rate_everything(campaign, rater, scores, seconds=5.0):
    """Normal ratings through assignment; returns the references in the order rated."""
    rated = []
    for score in scores:
        lease = rating_next(campaign=campaign, rater=rater)
        rating_submit(rating_id=lease.pk, rater=rater, score=score)
        rated.append(lease.slot.reference_id)
    _take(campaign, rater, seconds)
    return rated


def _take(campaign, rater, seconds):
    # Answers are given instantly in tests; spread them out as a human would.
    start = timezone.now() - timedelta(hours=1)
    for i, rating in enumerate(
        Rating.objects.filter(campaign=campaign, rater=rater).order_by("pk")
    ):
        begin = start + timedelta(seconds=60 * i)
        Rating.objects.filter(pk=rating.pk).update(
            started_at=begin, finished_at=begin + timedelta(seconds=seconds)
        )


def control(campaign, rater, reference_id, score, kind=RatingKind.BAD_REFERENCE, seconds=5.0):
    now = timezone.now()
    return Rating.objects.create(
        campaign=campaign,
        slot=Slot.objects.get(campaign=campaign, reference_id=reference_id),
        rater=rater,
        kind=kind,
        control_text="a reply from somewhere else" if kind == RatingKind.BAD_REFERENCE else "",
        status="done",
        score=score,
        started_at=now - timedelta(seconds=seconds),
        finished_at=now,
    )


@pytest.fixture
def campaign(make_campaign):
    return make_campaign(ratings_per_unit=1, extra_ratings_on_disagreement=0)


def careless(campaign, rater):
    """A rater who scores broken replies as well as their originals."""
    refs = rate_everything(campaign, rater, [4, 4, 5, 3, 4, 4])
    for ref, score in zip(refs[:3], [4, 5, 3]):
        control(campaign, rater, ref, score)
    return refs


def careful(campaign, rater):
    refs = rate_everything(campaign, rater, [5, 4, 5, 4, 3, 4])
    for ref, score in zip(refs[:3], [1, 1, 2]):
        control(campaign, rater, ref, score)
    return refs


def test_a_rater_is_pending_until_enough_bad_references(campaign, make_rater):
    rater = make_rater(campaign)
    refs = rate_everything(campaign, rater, [5, 4, 5])
    campaign.control_rate = 0.1  # bad references are mixed in: a verdict waits for them
    campaign.save(update_fields=["control_rate"])
    control(campaign, rater, refs[0], 1)
    membership = rater_qc_evaluate(campaign=campaign, rater=rater)
    assert membership.qc_status == "pending"
    assert membership.qc_reasons == ["Waiting for bad references: 1 of 3 rated."]
    assert membership.qc_checked_at is not None


def test_without_planted_controls_a_verdict_does_not_wait_for_them(campaign, make_rater):
    """control_rate 0 plants no bad references: waiting for three would never end. The
    verdict waits only for answers to every reference (fewer than ten here)."""
    rater = make_rater(campaign)
    rate_everything(campaign, rater, [5, 4, 5, 2, 3])
    early = rater_qc_evaluate(campaign=campaign, rater=rater)
    assert early.qc_reasons[0] == "Waiting for answers: 5 of 6 given."
    rate_everything(campaign, rater, [4])
    Rating.objects.filter(rater=rater).update(started_at=F("finished_at") - timedelta(seconds=9))
    membership = rater_qc_evaluate(campaign=campaign, rater=rater)
    assert (membership.qc_status, membership.qc_reasons) == ("passed", [])


def test_a_careful_rater_passes_and_keeps_counting(campaign, make_rater):
    rater = make_rater(campaign)
    careful(campaign, rater)
    membership = rater_qc_evaluate(campaign=campaign, rater=rater)
    assert (membership.qc_status, membership.qc_reasons) == ("passed", [])
    assert membership.qc_details["scores"]["n"] == 6
    assert membership.qc_details["median_seconds"] == 5.0
    assert not Rating.objects.filter(rater=rater, counted=False).exists()


def test_a_failed_rater_stops_counting_and_their_references_are_topped_up(campaign, make_rater):
    rater = make_rater(campaign)
    refs = careless(campaign, rater)
    assert Weight.objects.filter(campaign=campaign, n=1).count() == 6
    membership = rater_qc_evaluate(campaign=campaign, rater=rater)
    assert membership.qc_status == "failed"
    assert "bad references" in membership.qc_reasons[0]
    normal = Rating.objects.filter(rater=rater, kind="normal")
    assert normal.count() == 6 and not normal.filter(counted=True).exists()  # kept, not counted
    assert set(Slot.objects.values_list("active", flat=True)) == {0}
    assert Weight.objects.filter(campaign=campaign, n=0, weight=None).count() == 6
    newcomer = make_rater(campaign)
    assert sorted(rate_everything(campaign, newcomer, [3] * 6)) == sorted(refs)


def test_the_weights_follow_a_verdict_after_its_transaction(campaign, make_rater, monkeypatch):
    # Recomputing a large campaign's weights takes seconds; on SQLite a transaction holds the
    # one write lock throughout, so that must not happen inside the verdict's.
    from annotate.rating.services import qc, weights

    depths = []
    real = weights.weights_recompute_campaign
    monkeypatch.setattr(
        qc,
        "weights_recompute_campaign",
        lambda **kw: depths.append(len(connection.savepoint_ids)) or real(**kw),
    )
    rater = make_rater(campaign)
    careless(campaign, rater)
    assert rater_qc_evaluate(campaign=campaign, rater=rater).qc_status == "failed"
    assert depths == [0]
    assert Weight.objects.filter(campaign=campaign, n=0, weight=None).count() == 6


def test_evaluating_again_changes_nothing(campaign, make_rater):
    rater = make_rater(campaign)
    careless(campaign, rater)
    rater_qc_evaluate(campaign=campaign, rater=rater)
    with mock.patch("annotate.rating.services.qc.weights_recompute_campaign") as recompute:
        assert rater_qc_evaluate(campaign=campaign, rater=rater).qc_status == "failed"
    recompute.assert_not_called()
    assert set(Slot.objects.values_list("active", flat=True)) == {0}


def test_a_later_pass_counts_the_ratings_again(campaign, make_rater):
    rater = make_rater(campaign)
    careless(campaign, rater)
    rater_qc_evaluate(campaign=campaign, rater=rater)
    campaign.qc_alpha = 1.0  # the owner relaxes the test
    campaign.save()
    assert campaign_qc_evaluate(campaign_id=campaign.pk) == 1
    membership = CampaignRater.objects.get(campaign=campaign, rater=rater)
    assert membership.qc_status == "passed"
    assert not Rating.objects.filter(rater=rater, counted=False).exists()
    assert set(Slot.objects.values_list("active", flat=True)) == {1}
    assert Weight.objects.filter(campaign=campaign, n=1).count() == 6


def test_a_failed_rater_gets_no_more_items_and_gives_back_a_lease(campaign, make_rater):
    rater = make_rater(campaign)
    careless(campaign, rater)
    # A reference appears, and the rater asks for it before the verdict: a lease.
    item = Item.objects.filter(split__dataset=campaign.dataset).first()
    Reference.objects.create(item=item, text="a new candidate", origin="written", position=9)
    campaign_sync_slots(campaign=campaign)
    lease = rating_next(campaign=campaign, rater=rater)
    assert lease is not None and lease.slot.active + 1 == Slot.objects.get(pk=lease.slot_id).active
    rater_qc_evaluate(campaign=campaign, rater=rater)
    # Excluded: nothing more (they were handed items until the next check), and the lease held
    # goes back to the pool.
    assert rating_next(campaign=campaign, rater=rater) is None
    assert not Rating.objects.filter(pk=lease.pk).exists()
    assert Slot.objects.get(pk=lease.slot_id).active == 0
    reason = rater_nothing_left(campaign=campaign, rater=rater)
    assert reason is not None and reason.reason == "excluded"
    (row,) = campaigns_of_rater(rater=rater)
    assert (row.open_now, row.next_step) == (0, "done")


def test_an_answer_to_a_lease_held_when_excluded_is_kept_but_not_counted(campaign, make_rater):
    rater = make_rater(campaign)
    careless(campaign, rater)
    item = Item.objects.filter(split__dataset=campaign.dataset).first()
    reference = Reference.objects.create(item=item, text="new", origin="written", position=9)
    campaign_sync_slots(campaign=campaign)
    lease = rating_next(campaign=campaign, rater=rater)
    rater_qc_evaluate(campaign=campaign, rater=rater)
    # The rating page was open before the verdict: its answer arrives after it.
    answer = rating_submit(rating_id=lease.pk, rater=rater, score=5)
    assert (answer.status, answer.counted) == ("done", False)
    assert Slot.objects.get(pk=lease.slot_id).active == 0
    assert not Weight.objects.filter(campaign=campaign, reference=reference, n__gt=0).exists()


def test_one_raters_verdict_leaves_others_alone(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=2, extra_ratings_on_disagreement=0)
    bad, good = make_rater(campaign), make_rater(campaign)
    careless(campaign, bad)
    careful(campaign, good)
    rater_qc_evaluate(campaign=campaign, rater=bad)
    assert Rating.objects.filter(rater=good, kind="normal", counted=True).count() == 6
    assert set(Slot.objects.values_list("active", flat=True)) == {1}


def test_the_task_judges_one_rater(campaign, make_rater):
    rater = make_rater(campaign)
    careful(campaign, rater)
    assert rater_qc_task(campaign.pk, rater.pk) == "passed"
    assert rater_qc_task(campaign.pk, rater.pk + 1000) is None


def test_each_submitted_rating_enqueues_a_quality_check(
    campaign, make_rater, django_capture_on_commit_callbacks
):
    rater = make_rater(campaign)
    lease = rating_next(campaign=campaign, rater=rater)
    with (
        mock.patch("annotate.rating.tasks.rater_qc_task.apply_async") as qc,
        mock.patch("annotate.rating.tasks.campaign_weights_task.apply_async"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        rating_submit(rating_id=lease.pk, rater=rater, score=4)
    qc.assert_called_once()
    assert qc.call_args.kwargs["args"] == (campaign.pk, rater.pk)
