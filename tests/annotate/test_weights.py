"""Weights follow each rating in the same transaction; z-normalised weights for the campaign."""

import math

import pytest

from annotate.rating.models import Rating, Weight
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.ratings import rating_submit
from annotate.rating.services.weights import weight_recompute, weights_recompute_campaign
from annotate.rating.weights_math import weight_of

pytestmark = pytest.mark.django_db


def rate(campaign, rater, score):
    rating = rating_next(campaign=campaign, rater=rater)
    rating_submit(rating_id=rating.pk, rater=rater, score=score)
    return rating


def test_a_rating_updates_its_references_weight_at_once(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=2)
    first = rate(campaign, make_rater(campaign), 5)
    weight = Weight.objects.get(campaign=campaign, reference_id=first.slot.reference_id)
    assert (weight.n, weight.weight) == (1, 1.0)


def test_a_references_weight_row_is_written_by_one_upsert_that_keeps_its_z_weight(
    make_campaign, make_rater, django_assert_num_queries
):
    campaign = make_campaign(ratings_per_unit=2)
    reference_id = rate(campaign, make_rater(campaign), 5).slot.reference_id
    Weight.objects.filter(campaign=campaign).update(z_weight=0.5)
    rate_to = Rating.objects.get(campaign=campaign, slot__reference_id=reference_id)
    Rating.objects.filter(pk=rate_to.pk).update(score=1)
    with django_assert_num_queries(2):  # the counted scores, then INSERT … ON CONFLICT UPDATE
        returned = weight_recompute(campaign=campaign, reference_id=reference_id)
    (stored,) = Weight.objects.filter(campaign=campaign, reference_id=reference_id)
    assert (returned.n, returned.weight) == (stored.n, stored.weight) == (1, -1.0)
    assert stored.z_weight == 0.5 and stored.scores_seen == "1"


def test_the_weight_is_the_rescaled_mean_with_n_sd_and_interval(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=2)
    a, b = make_rater(campaign), make_rater(campaign)
    ref = rate(campaign, a, 5).slot.reference_id
    lease = rating_next(campaign=campaign, rater=b)
    while lease.slot.reference_id != ref:
        rating_submit(rating_id=lease.pk, rater=b, score=3)
        lease = rating_next(campaign=campaign, rater=b)
    rating_submit(rating_id=lease.pk, rater=b, score=2)
    weight = Weight.objects.get(campaign=campaign, reference_id=ref)
    assert weight.n == 2 and weight.mean == pytest.approx(3.5)
    assert weight.weight == pytest.approx(0.25) and weight.sd == pytest.approx(2.1213203435596424)
    assert weight.ci_low <= weight.weight <= weight.ci_high


def test_z_weights_remove_a_raters_leniency(make_campaign, make_rater):
    # Each reference is rated once; the two raters take turns and give their three references
    # the same qualities 2, 3, 4, the lenient one a point higher. Raw weights differ by rater;
    # z-weights must not, and must equal the hand-computed rescaling.
    campaign = make_campaign(ratings_per_unit=1)
    lenient, strict = make_rater(campaign), make_rater(campaign)
    quality, by_rater = {}, {lenient: [], strict: []}
    leases = True
    while leases:
        leases = False
        for rater, shift in ((lenient, 1), (strict, 0)):
            if (lease := rating_next(campaign=campaign, rater=rater)) is None:
                continue
            leases = True
            q = quality[lease.slot.reference_id] = 2 + len(by_rater[rater])
            by_rater[rater].append(lease.slot.reference_id)
            rating_submit(rating_id=lease.pk, rater=rater, score=q + shift)
    assert [len(refs) for refs in by_rater.values()] == [3, 3]
    assert weights_recompute_campaign(campaign_id=campaign.pk) == 6
    weights = {w.reference_id: w for w in Weight.objects.filter(campaign=campaign)}
    # Each rater's scores have SD sqrt(2/3), so quality q has z = (q - 3) * sqrt(3/2); all six
    # scores have mean 3.5 and SD sqrt(11/12), so z maps back to 3.5 + (q - 3) * sqrt(11/8).
    for lenient_ref, strict_ref in zip(by_rater[lenient], by_rater[strict], strict=True):
        q = quality[lenient_ref]
        expected = weight_of(3.5 + (q - 3) * math.sqrt(11 / 8), 1, 5)
        assert weights[lenient_ref].z_weight == pytest.approx(expected)
        assert weights[strict_ref].z_weight == pytest.approx(expected)
        assert weights[lenient_ref].weight - weights[strict_ref].weight == pytest.approx(0.5)


def test_excluded_ratings_do_not_count(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    rating = rate(campaign, make_rater(campaign), 5)
    Rating.objects.filter(pk=rating.pk).update(counted=False)
    weights_recompute_campaign(campaign_id=campaign.pk)
    weight = Weight.objects.get(campaign=campaign, reference_id=rating.slot.reference_id)
    assert (weight.n, weight.weight) == (0, None)
