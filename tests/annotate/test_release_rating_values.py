"""A frozen reference keeps the numbers its weight is the mean of, and the live reference it came
from: a leaderboard resamples them (rater-aware intervals), adaptive rating maps back to it."""

import pytest

from annotate.datasets.models import Reference
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.ratings import rating_submit
from annotate.rating.services.weights import weights_recompute_campaign
from annotate.rating.weights_math import weight_of
from annotate.releases.models import ReleaseReference
from annotate.releases.services import release_publish
from annotate.releases.services.importing import release_import_archive
from tests.annotate.release_kit import archive_bytes, freeze, shared_world

pytestmark = pytest.mark.django_db

# Scores by rater, in the order the uniform engine hands out the six references.
SCORES = [[5, 4, 2, 3, 1, 4], [4, 4, 1, 5, 2, 3], [5, 3, 3, 4, 2, 5]]


def _rated(owner, make_dataset, make_campaign, make_rater):
    """A public dataset whose six references three raters rated through the rating services."""
    dataset = make_dataset(visibility="public")
    campaign = make_campaign(dataset=dataset, ratings_per_unit=3)
    for scores in SCORES:
        rater = make_rater(campaign)
        for score in scores:
            lease = rating_next(campaign=campaign, rater=rater)
            rating_submit(rating_id=lease.pk, rater=rater, score=score)
    weights_recompute_campaign(campaign_id=campaign.pk)
    return dataset, campaign


# Built once for the module: each test freezes its own release of it, rolled back after it.
shared, world = shared_world(_rated)


def _refs(release, split=None):
    refs = ReleaseReference.objects.filter(release=release)
    if split:
        refs = refs.filter(item__split=split)
    return list(refs.order_by("item__position", "position"))


@pytest.mark.parametrize("variant", ["raw", "z"])
def test_the_weight_is_the_mean_of_the_frozen_values(world, owner, variant):
    dataset, campaign = world
    release = freeze(dataset, campaign, owner, weight_variant=variant, unrated="zero")
    refs = _refs(release)
    assert all(len(ref.rating_values) == 3 for ref in refs)
    for ref in refs:
        weight = ref.weight_for(variant)
        mean = sum(ref.rating_values) / 3
        assert weight == pytest.approx(weight_of(mean, 1, 5), abs=1e-12)
    live = Reference.objects.filter(item__split__dataset=dataset).order_by(
        "item__position", "position"
    )
    assert [ref.source_reference_id for ref in refs] == [ref.pk for ref in live]


def test_raw_values_are_the_scores_in_rating_order(world, owner):
    dataset, campaign = world
    refs = _refs(freeze(dataset, campaign, owner))
    by_rater = [[scores[k] for scores in SCORES] for k in range(6)]
    assert sorted(ref.rating_values for ref in refs) == sorted(
        [float(s) for s in column] for column in by_rater
    )


def test_each_value_keeps_who_gave_it_as_a_rater_number(world, owner):
    """The raters are numbered 1, 2, 3 in the order of their first rating (the release's
    pseudonyms r001, r002, r003), never by user id, beside each value in the same order."""
    dataset, campaign = world
    refs = _refs(freeze(dataset, campaign, owner, include_ratings=True))
    _assert_numbers_are_the_pseudonyms(refs)
    # Rater k gave SCORES[k]: the first rater's are the first rater's.
    first = [v for ref in refs for v, n in zip(ref.rating_values, ref.rating_raters) if n == 1]
    assert sorted(first) == sorted(float(s) for s in SCORES[0])


def _assert_numbers_are_the_pseudonyms(refs):
    by_reference = {
        (ref.pk, rating.rater): rating.score for ref in refs for rating in ref.ratings.all()
    }
    for ref in refs:
        assert sorted(ref.rating_raters) == [1, 2, 3]
        for value, number in zip(ref.rating_values, ref.rating_raters, strict=True):
            assert by_reference[(ref.pk, f"r{number:03d}")] == value


def test_an_imported_raw_release_gets_its_values_from_its_ratings(world, owner, other):
    dataset, campaign = world
    release = release_publish(release=freeze(dataset, campaign, owner, include_ratings=True))
    copy = release_import_archive(source=archive_bytes(release, owner), owner=other, slug="copy")
    # The archive publishes the dev split's references (the test split stays hidden).
    assert [sorted(r.rating_values) for r in _refs(copy)] == [
        sorted(r.rating_values) for r in _refs(release, "dev")
    ]
    # … and who gave each (numbered by the archive's pseudonyms' first ratings).
    _assert_numbers_are_the_pseudonyms(_refs(copy))


def test_a_release_without_ratings_imports_fixed_weights(world, owner, other):
    dataset, campaign = world
    release = release_publish(release=freeze(dataset, campaign, owner))
    copy = release_import_archive(source=archive_bytes(release, owner), owner=other, slug="copy")
    assert all(r.rating_values == [] for r in _refs(copy))
    assert [r.weight for r in _refs(copy)] == [r.weight for r in _refs(release, "dev")]
