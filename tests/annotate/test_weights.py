"""Weights follow each rating in the same transaction; z-normalised weights for the campaign."""

import pytest

from annotate.models import Rating, Weight
from annotate.services.assignment import rating_next
from annotate.services.ratings import rating_submit
from annotate.services.weights import weights_recompute_campaign

pytestmark = pytest.mark.django_db


def rate(campaign, rater, score):
    rating = rating_next(campaign=campaign, rater=rater)
    rating_submit(rating_id=rating.pk, rater=rater, score=score)
    return rating


def test_a_rating_updates_its_references_weight_at_once(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_reference=2)
    first = rate(campaign, make_rater(campaign), 5)
    weight = Weight.objects.get(campaign=campaign, reference_id=first.reference_id)
    assert (weight.n, weight.weight) == (1, 1.0)


def test_the_weight_is_the_rescaled_mean_with_n_sd_and_interval(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_reference=2)
    a, b = make_rater(campaign), make_rater(campaign)
    ref = rate(campaign, a, 5).reference_id
    lease = rating_next(campaign=campaign, rater=b)
    while lease.reference_id != ref:
        rating_submit(rating_id=lease.pk, rater=b, score=3)
        lease = rating_next(campaign=campaign, rater=b)
    rating_submit(rating_id=lease.pk, rater=b, score=2)
    weight = Weight.objects.get(campaign=campaign, reference_id=ref)
    assert weight.n == 2 and weight.mean == pytest.approx(3.5)
    assert weight.weight == pytest.approx(0.25) and weight.sd == pytest.approx(2.1213203435596424)
    assert weight.ci_low <= weight.weight <= weight.ci_high


def test_z_weights_remove_a_raters_leniency(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_reference=2, extra_ratings_on_disagreement=0)
    lenient, strict = make_rater(campaign), make_rater(campaign)
    scores = {}
    for rater, shift in ((lenient, 1), (strict, 0)):
        while (lease := rating_next(campaign=campaign, rater=rater)) is not None:
            base = scores.setdefault(lease.reference_id, 2 + len(scores) % 3)
            rating_submit(rating_id=lease.pk, rater=rater, score=base + shift)
    assert weights_recompute_campaign(campaign_id=campaign.pk) == 6
    for weight in Weight.objects.filter(campaign=campaign):
        assert -1 <= weight.z_weight <= 1
    ordered = sorted(Weight.objects.filter(campaign=campaign), key=lambda w: scores[w.reference_id])
    assert [w.z_weight for w in ordered] == sorted(w.z_weight for w in ordered)


def test_excluded_ratings_do_not_count(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_reference=1)
    rating = rate(campaign, make_rater(campaign), 5)
    Rating.objects.filter(pk=rating.pk).update(counted=False)
    weights_recompute_campaign(campaign_id=campaign.pk)
    weight = Weight.objects.get(campaign=campaign, reference_id=rating.reference_id)
    assert (weight.n, weight.weight) == (0, None)
