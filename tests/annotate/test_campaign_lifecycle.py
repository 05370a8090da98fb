"""A campaign's lifecycle: every state reached and left, completion within what raters can give,
capped top-ups, and new references joining open campaigns."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from annotate.datasets.models import Item, Reference
from annotate.datasets.services.datasets import dataset_import_file
from annotate.mining.signals import candidates_added
from annotate.rating.models import Campaign, CampaignStatus, QCStatus, Rating, Slot
from annotate.rating.selectors.campaigns import campaign_progress
from annotate.rating.selectors.lifecycle import Reason, rater_nothing_left
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_join
from annotate.rating.services.lifecycle import campaign_transition
from annotate.rating.services.ratings import rating_pass, rating_submit

pytestmark = pytest.mark.django_db


def rate_all(campaign, rater, score=4):
    while (rating := rating_next(campaign=campaign, rater=rater)) is not None:
        rating_submit(rating_id=rating.pk, rater=rater, score=score)


def status_of(campaign) -> str:
    campaign.refresh_from_db()
    return campaign.status


# Slots for new references are added when the writing transaction commits: the tests of it
# commit for real.
commits = pytest.mark.django_db(transaction=True)


def _new_items(dataset, *ids: str) -> None:
    lines = [
        json.dumps(
            {
                "id": i,
                "split": "dev",
                "context": [],
                "message": f"m {i}",
                "references": [{"text": f"new reference {i}", "origin": "original"}],
            }
        ).encode()
        for i in ids
    ]
    dataset_import_file(dataset=dataset, lines=lines, fmt="jsonl")


def test_a_two_rater_campaign_with_disagreement_completes_at_100_percent(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=2, extra_ratings_on_disagreement=2)
    lenient, strict = make_rater(campaign), make_rater(campaign)
    rate_all(campaign, lenient, score=5)
    assert status_of(campaign) == CampaignStatus.OPEN
    rate_all(campaign, strict, score=1)  # every reference disagrees: SD 2.83
    progress = campaign_progress(campaign=campaign)
    assert progress.percent == 100 and progress.complete_units == progress.units == 6
    assert status_of(campaign) == CampaignStatus.COMPLETE


def test_top_ups_stop_at_what_the_raters_can_give(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=2, extra_ratings_on_disagreement=5)
    raters = [make_rater(campaign) for _ in range(3)]
    for rater, score in zip(raters[:2], (5, 1), strict=True):
        rate_all(campaign, rater, score=score)
    wanted = set(Slot.objects.filter(campaign=campaign).values_list("wanted", flat=True))
    assert wanted == {3}  # two ratings plus the third rater, not 2 + 5
    rate_all(campaign, raters[2], score=3)
    assert status_of(campaign) == CampaignStatus.COMPLETE
    assert campaign_progress(campaign=campaign).percent == 100


def test_complete_when_no_rater_can_give_more_and_a_new_rater_reopens_it(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=3)
    first, second = make_rater(campaign), make_rater(campaign)
    rate_all(campaign, first)
    rate_all(campaign, second)
    assert status_of(campaign) == CampaignStatus.COMPLETE
    assert campaign_progress(campaign=campaign).percent == 66  # 12 of 18: nobody can add more
    assert rater_nothing_left(campaign=campaign, rater=first).reason == Reason.COMPLETE
    third = make_rater(campaign)
    assert status_of(campaign) == CampaignStatus.OPEN
    rate_all(campaign, third)
    assert status_of(campaign) == CampaignStatus.COMPLETE
    assert campaign_progress(campaign=campaign).percent == 100


def test_skips_count_as_answers_for_completion(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    rater = make_rater(campaign)
    while (rating := rating_next(campaign=campaign, rater=rater)) is not None:
        rating_pass(rating_id=rating.pk, rater=rater)
    assert status_of(campaign) == CampaignStatus.COMPLETE


def test_a_campaign_without_raters_waits_open(make_campaign):
    campaign = make_campaign()
    assert status_of(campaign) == CampaignStatus.OPEN


def test_a_rater_excluded_by_qc_frees_places_and_can_give_no_more(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    rater = make_rater(campaign)
    rate_all(campaign, rater)
    assert status_of(campaign) == CampaignStatus.COMPLETE
    from annotate.rating.models import CampaignRater

    CampaignRater.objects.filter(campaign=campaign, rater=rater).update(qc_status=QCStatus.FAILED)
    Rating.objects.filter(campaign=campaign).update(counted=False)
    Slot.objects.filter(campaign=campaign).update(active=0)
    # Short slots and no able rater: it waits for raters rather than calling itself complete.
    from annotate.rating.services.status import campaign_status_refresh

    assert campaign_status_refresh(campaign=campaign) == CampaignStatus.OPEN
    assert rater_nothing_left(campaign=campaign, rater=rater).reason == Reason.EXCLUDED


@commits
def test_every_state_is_reached_and_left(make_campaign, make_rater, make_dataset):
    dataset = make_dataset()
    campaign = make_campaign(dataset=dataset, draft=True, ratings_per_unit=1)
    assert campaign.status == CampaignStatus.DRAFT
    with pytest.raises(ValidationError):
        campaign_join(campaign=campaign, rater=make_rater())
    campaign_transition(campaign=campaign, action="open")  # draft → open
    rater = make_rater(campaign)
    rate_all(campaign, rater)
    assert status_of(campaign) == CampaignStatus.COMPLETE  # open → complete
    _new_items(dataset, "n1")
    assert status_of(campaign) == CampaignStatus.OPEN  # complete → open: a new reference
    rate_all(campaign, rater)
    assert status_of(campaign) == CampaignStatus.COMPLETE
    campaign_transition(campaign=campaign, action="close")  # complete → closed
    assert rating_next(campaign=campaign, rater=rater) is None
    assert rater_nothing_left(campaign=campaign, rater=rater).reason == Reason.CLOSED
    with pytest.raises(ValidationError):
        campaign_transition(campaign=campaign, action="close")
    campaign_transition(campaign=campaign, action="open")  # closed → open → complete
    assert status_of(campaign) == CampaignStatus.COMPLETE
    _new_items(dataset, "n2")
    assert status_of(campaign) == CampaignStatus.OPEN
    campaign_transition(campaign=campaign, action="close")  # open → closed
    assert status_of(campaign) == CampaignStatus.CLOSED
    with pytest.raises(ValidationError) as refused:
        campaign_transition(campaign=campaign, action="finish")
    assert "action" in refused.value.message_dict


def test_joining_an_open_campaign_does_not_recount_it(
    make_campaign, make_rater, django_assert_max_num_queries
):
    # A new rater can only reopen a complete campaign: on an open one, joining costs the
    # membership, the top-ups and one read of the status, not the six of a completion check.
    campaign = make_campaign(ratings_per_unit=2)
    make_rater(campaign)  # who has rated nothing yet: the campaign is open
    newcomer = make_rater()
    with django_assert_max_num_queries(8):
        campaign_join(campaign=campaign, rater=newcomer)
    assert status_of(campaign) == CampaignStatus.OPEN


def test_a_rating_that_leaves_the_campaign_open_writes_no_status(
    make_campaign, make_rater, django_assert_num_queries
):
    # The refresh after every rating: with slots nobody has answered yet, one read asks for the
    # status and live leases, one for such a slot (three reads before) — no count of every
    # slot's ratings (there was one at every rating) and no UPDATE (there was one every time).
    from annotate.rating.services.status import campaign_status_refresh

    campaign = make_campaign(ratings_per_unit=2)
    rater = make_rater(campaign)
    lease = rating_next(campaign=campaign, rater=rater)
    rating_submit(rating_id=lease.pk, rater=rater, score=4)
    with django_assert_num_queries(2) as queries:
        assert campaign_status_refresh(campaign=campaign) == CampaignStatus.OPEN
    assert all(query["sql"].startswith("SELECT") for query in queries.captured_queries)
    # A live lease, while raters are at work, settles it in the status's own read.
    rating_next(campaign=campaign, rater=rater)
    with django_assert_num_queries(1):
        assert campaign_status_refresh(campaign=campaign) == CampaignStatus.OPEN


def test_closing_keeps_a_live_lease_answerable_until_it_expires(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    rater = make_rater(campaign)
    lease = rating_next(campaign=campaign, rater=rater)
    campaign_transition(campaign=campaign, action="close")
    assert rating_submit(rating_id=lease.pk, rater=rater, score=3).status == "done"
    assert rating_next(campaign=campaign, rater=rater) is None


@commits
def test_imported_references_join_open_campaigns_only(make_campaign, make_dataset, make_rater):
    dataset = make_dataset()
    open_one = make_campaign(dataset=dataset, name="Open")
    closed = make_campaign(dataset=dataset, name="Closed")
    campaign_transition(campaign=closed, action="close")
    on_test = make_campaign(
        dataset=dataset, name="Test only", split=dataset.splits.get(name="test")
    )
    _new_items(dataset, "n1", "n2")
    assert Slot.objects.filter(campaign=open_one).count() == 8
    assert Slot.objects.filter(campaign=closed).count() == 6  # until it opens again
    assert Slot.objects.filter(campaign=on_test).count() == 2  # a dev item is not its split
    campaign_transition(campaign=closed, action="open")
    assert Slot.objects.filter(campaign=closed).count() == 8


@commits
def test_mined_and_single_references_join_an_open_campaign(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    rater = make_rater(campaign)
    rate_all(campaign, rater)
    assert status_of(campaign) == CampaignStatus.COMPLETE
    item = Item.objects.filter(split__dataset=campaign.dataset).first()
    Reference.objects.create(item=item, text="written later", position=9)
    assert Slot.objects.filter(campaign=campaign).count() == 7
    assert status_of(campaign) == CampaignStatus.OPEN
    Reference.objects.bulk_create([Reference(item=item, text="mined later", position=10)])
    assert Slot.objects.filter(campaign=campaign).count() == 7  # bulk writes send no post_save
    candidates_added.send(sender=Reference, dataset_id=campaign.dataset_id)
    assert Slot.objects.filter(campaign=campaign).count() == 8
    rate_all(campaign, rater)
    assert status_of(campaign) == CampaignStatus.COMPLETE


def test_a_rater_waiting_for_others_leases_is_told_when(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    slow, quick = make_rater(campaign), make_rater(campaign)
    held = [rating_next(campaign=campaign, rater=slow)]
    rate_all(campaign, quick)
    why = rater_nothing_left(campaign=campaign, rater=quick)
    assert why.reason == Reason.WAITING and why.retry_at == held[0].lease_expires_at
    assert status_of(campaign) == CampaignStatus.OPEN  # a live lease: not complete yet
    Rating.objects.filter(pk=held[0].pk).update(lease_expires_at=timezone.now() - timedelta(1))
    assert rating_next(campaign=campaign, rater=quick) is not None  # it came back


def test_a_rater_who_rated_everything_they_can_is_told_so(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=2)
    first = make_rater(campaign)
    rate_all(campaign, first)
    make_rater(campaign)  # a second rater could add the rest
    assert status_of(campaign) == CampaignStatus.OPEN
    assert rater_nothing_left(campaign=campaign, rater=first).reason == Reason.RATED_ALL


def test_a_crowd_participant_with_their_share_done_is_told_so(make_campaign):
    from annotate.rating.services.campaigns import crowd_rater_get_or_create

    campaign = make_campaign(ratings_per_unit=1, ratings_per_rater=2)
    crowd = crowd_rater_get_or_create(campaign=campaign, participant_id="PID-9")
    rate_all(campaign, crowd)
    assert rater_nothing_left(campaign=campaign, rater=crowd).reason == Reason.SHARE_DONE


def test_a_draft_says_it_is_not_open(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    from annotate.rating.models import Campaign

    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.DRAFT)
    campaign.refresh_from_db()
    assert rating_next(campaign=campaign, rater=rater) is None
    assert rater_nothing_left(campaign=campaign, rater=rater).reason == Reason.DRAFT


@pytest.mark.parametrize("kept", [CampaignStatus.DRAFT, CampaignStatus.CLOSED])
def test_the_refresh_leaves_a_draft_or_closed_campaign_as_it_is(make_campaign, make_rater, kept):
    # Rated through, the rule would say complete; it applies to open and complete ones only.
    from annotate.rating.selectors.lifecycle import campaign_status_read
    from annotate.rating.services.status import campaign_status_refresh

    campaign = make_campaign(ratings_per_unit=1)
    rate_all(campaign, make_rater(campaign))
    Campaign.objects.filter(pk=campaign.pk).update(status=kept)
    assert campaign_status_read(campaign=campaign) == (kept, None)
    assert campaign_status_refresh(campaign=campaign) == kept
    assert status_of(campaign) == kept
