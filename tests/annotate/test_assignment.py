"""Assignment: fewest ratings first, never the same reference twice, leases, k per reference."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotate.rating.models import Rating, RatingKind, Slot
from annotate.rating.services.assignment import NotAMember, leases_reclaim, rating_next
from annotate.rating.services.ratings import rating_pass, rating_submit

pytestmark = pytest.mark.django_db


def rate_all(campaign, rater, score=4):
    seen = []
    while (rating := rating_next(campaign=campaign, rater=rater)) is not None:
        seen.append(rating.slot.reference_id)
        rating_submit(rating_id=rating.pk, rater=rater, score=score)
    return seen


def test_a_rater_rates_each_reference_once(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=2)
    rater = make_rater(campaign)
    seen = rate_all(campaign, rater)
    assert len(seen) == len(set(seen)) == 6


def test_exactly_k_ratings_per_unit(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=2)
    raters = [make_rater(campaign) for _ in range(4)]
    for rater in raters:
        rate_all(campaign, rater)
    counts = [s.active for s in Slot.objects.filter(campaign=campaign)]
    assert counts == [2] * 6
    assert Rating.objects.filter(campaign=campaign, status="done").count() == 12


def test_the_reference_with_fewest_ratings_comes_first(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=3)
    first, second = make_rater(campaign), make_rater(campaign)
    taken = rating_next(campaign=campaign, rater=first)
    offered = rating_next(campaign=campaign, rater=second)
    assert offered.slot.reference_id != taken.slot.reference_id


def test_the_current_lease_is_resumed(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    assert rating_next(campaign=campaign, rater=rater) == rating_next(
        campaign=campaign, rater=rater
    )


def test_an_expired_lease_goes_back_to_the_pool(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    slow, quick = make_rater(campaign), make_rater(campaign)
    abandoned = rating_next(campaign=campaign, rater=slow)
    Rating.objects.filter(pk=abandoned.pk).update(lease_expires_at=timezone.now() - timedelta(1))
    assert leases_reclaim() == 1
    assert abandoned.slot.reference_id in rate_all(campaign, quick)
    with pytest.raises(ValidationError, match="reclaimed"):
        rating_submit(rating_id=abandoned.pk, rater=slow, score=3)


def test_a_skipped_reference_is_offered_to_others_not_again_to_the_rater(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    skipper, other = make_rater(campaign), make_rater(campaign)
    skipped = rating_next(campaign=campaign, rater=skipper)
    rating_pass(rating_id=skipped.pk, rater=skipper)
    assert skipped.slot.reference_id not in rate_all(campaign, skipper)
    flagged = Rating.objects.filter(campaign=campaign, rater=skipper, status="done").first()
    assert flagged is not None
    assert skipped.slot.reference_id in rate_all(campaign, other)


def test_a_flag_is_recorded(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    rating = rating_next(campaign=campaign, rater=rater)
    rating_pass(rating_id=rating.pk, rater=rater, flag="offensive")
    rating.refresh_from_db()
    assert (rating.status, rating.flag) == ("flagged", "offensive")
    with pytest.raises(ValidationError):
        rating_pass(rating_id=rate_next_id(campaign, rater), rater=rater, flag="boring")


def rate_next_id(campaign, rater):
    return rating_next(campaign=campaign, rater=rater).pk


def test_the_database_refuses_a_second_normal_rating(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    rating = rating_next(campaign=campaign, rater=rater)
    with pytest.raises(IntegrityError), transaction.atomic():
        Rating.objects.create(
            campaign=campaign,
            slot_id=rating.slot_id,
            rater=rater,
            started_at=timezone.now(),
        )


def test_non_members_get_nothing(make_campaign, make_rater):
    campaign = make_campaign()
    with pytest.raises(NotAMember):
        rating_next(campaign=campaign, rater=make_rater())


def test_scores_outside_the_scale_are_refused(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    rating = rating_next(campaign=campaign, rater=rater)
    for bad in (0, 6, "4"):
        with pytest.raises(ValidationError, match="from 1 to 5"):
            rating_submit(rating_id=rating.pk, rater=rater, score=bad)


def test_submitting_twice_is_harmless_but_changing_is_refused(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    rating = rating_next(campaign=campaign, rater=rater)
    rating_submit(rating_id=rating.pk, rater=rater, score=4)
    rating_submit(rating_id=rating.pk, rater=rater, score=4)
    with pytest.raises(ValidationError, match="already answered"):
        rating_submit(rating_id=rating.pk, rater=rater, score=2)


def test_someone_elses_lease_cannot_be_answered(make_campaign, make_rater):
    campaign = make_campaign()
    owner_of_lease, intruder = make_rater(campaign), make_rater(campaign)
    rating = rating_next(campaign=campaign, rater=owner_of_lease)
    with pytest.raises(ValidationError, match="not yours"):
        rating_submit(rating_id=rating.pk, rater=intruder, score=5)


def test_time_is_recorded_server_side(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    rating = rating_next(campaign=campaign, rater=rater)
    rating = rating_submit(rating_id=rating.pk, rater=rater, score=3)
    assert rating.started_at <= rating.finished_at and rating.seconds >= 0


def test_a_crowd_rater_stops_at_their_quota(make_campaign):
    from annotate.rating.services.campaigns import crowd_rater_get_or_create

    campaign = make_campaign(ratings_per_rater=2)
    crowd = crowd_rater_get_or_create(campaign=campaign, participant_id="PID-1")
    assert len(rate_all(campaign, crowd)) == 2
    assert crowd_rater_get_or_create(campaign=campaign, participant_id="PID-1") == crowd


def test_strong_disagreement_asks_for_more_ratings_as_raters_can_give_them(
    make_campaign, make_rater
):
    campaign = make_campaign(ratings_per_unit=2, extra_ratings_on_disagreement=2)
    lenient, strict = make_rater(campaign), make_rater(campaign)
    rate_all(campaign, lenient, score=5)
    rate_all(campaign, strict, score=1)
    # Two raters cannot give a third rating: the target stays within reach.
    assert set(Slot.objects.filter(campaign=campaign).values_list("wanted", flat=True)) == {2}
    third = make_rater(campaign)
    assert set(Slot.objects.filter(campaign=campaign).values_list("wanted", flat=True)) == {3}
    assert rating_next(campaign=campaign, rater=third) is not None


@pytest.mark.slow  # forty ratings of the demo dataset: make test and CI, not test-fast
def test_controls_are_mixed_in_at_the_configured_rate(make_campaign, make_rater, make_dataset):
    from annotate.datasets.services.datasets import dataset_import_file
    from annotate.datasets.services.demo import DEMO_FILE

    dataset = make_dataset(slug="demo", data=None)
    with DEMO_FILE.open("rb") as lines:
        dataset_import_file(dataset=dataset, lines=lines, fmt="jsonl")
    campaign = make_campaign(dataset=dataset, control_rate=0.25, ratings_per_unit=1)
    rater = make_rater(campaign)
    kinds = []
    for n in range(40):
        rating = rating_next(campaign=campaign, rater=rater)
        kinds.append(rating.kind)
        rating_submit(rating_id=rating.pk, rater=rater, score=1 + n % 5)
    assert kinds.count(RatingKind.BAD_REFERENCE) >= 4 and kinds.count(RatingKind.REPEAT) >= 4
    assert kinds.count(RatingKind.NORMAL) == 30
    bad = Rating.objects.filter(rater=rater, kind=RatingKind.BAD_REFERENCE).first()
    assert bad.control_text and bad.control_text != bad.slot.reference.text
    assert bad.donor_item_id not in (None, bad.slot.item_id)
    repeat = Rating.objects.filter(rater=rater, kind=RatingKind.REPEAT).first()
    assert Rating.objects.filter(rater=rater, kind="normal", slot=repeat.slot).exists()
