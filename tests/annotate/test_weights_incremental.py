"""The incremental weights recompute gives exactly what a full recompute gives, in few queries."""

import random
from collections import defaultdict

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from annotate.datasets.models import Item, Reference, Split
from annotate.rating.models import Rating, Slot, Weight
from annotate.rating.selectors.campaigns import counted_ratings
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.ratings import rating_pass, rating_submit
from annotate.rating.services.weights import weights_recompute_campaign
from annotate.rating.weights_math import summarise, weight_of, z_rescaled
from tests.examples import examples

pytestmark = pytest.mark.django_db

FIELDS = ["n", "mean", "sd", "weight", "ci_low", "ci_high", "z_weight"]


def full_recompute_oracle(campaign) -> dict[int, tuple]:
    """The weights as the full recompute computed them before it went incremental (its code,
    kept here as the yardstick), by reference."""
    ratings = counted_ratings(campaign=campaign).order_by("started_at", "pk")
    rows = list(ratings.values_list("slot__reference_id", "rater_id", "score"))
    by_reference: dict[int, list[int]] = defaultdict(list)
    for reference_id, _, score in rows:
        by_reference[reference_id].append(score)
    z_by_reference: dict[int, list[float]] = defaultdict(list)
    if rows:
        data = np.array(rows, dtype=float)
        rescaled = z_rescaled(data[:, 2], data[:, 1], campaign.scale_min, campaign.scale_max)
        for reference_id, value in zip(data[:, 0].astype(int), rescaled, strict=True):
            z_by_reference[int(reference_id)].append(float(value))
    expected = {
        reference_id: (0, None, None, None, None, None, None)
        for reference_id in Weight.objects.filter(campaign=campaign).values_list(
            "reference_id", flat=True
        )
    }
    for reference_id, scores in by_reference.items():
        fields = summarise(scores, campaign.scale_min, campaign.scale_max)
        z_mean = float(np.mean(z_by_reference[reference_id]))
        fields["z_weight"] = weight_of(z_mean, campaign.scale_min, campaign.scale_max)
        expected[reference_id] = tuple(fields[name] for name in FIELDS)
    return expected


def stored(campaign) -> dict[int, tuple]:
    weights = Weight.objects.filter(campaign=campaign)
    return {row[0]: tuple(row[1:]) for row in weights.values_list("reference_id", *FIELDS)}


def add_references(dataset, count: int, start: int = 0) -> list[Reference]:
    split, _ = Split.objects.get_or_create(dataset=dataset, name="dev")
    items = Item.objects.bulk_create(
        Item(split=split, external_id=f"i{k}", message=f"m{k}", position=k)
        for k in range(start, start + count)
    )
    return Reference.objects.bulk_create(
        Reference(item=item, text=f"r{item.position}.{p}", position=p)
        for item in items
        for p in range(2)
    )


@pytest.fixture
def busy_campaign(make_campaign, make_dataset):
    dataset = make_dataset(data=None)
    add_references(dataset, 8)
    return make_campaign(dataset=dataset, ratings_per_unit=3, extra_ratings_on_disagreement=1)


def one_step(rng, campaign, raters, leniency) -> None:
    """A random event: a rating (biased per rater), a skip, a quality-control exclusion or
    readmission, a rater deleted, or a weight written by a rater who missed another's rating."""
    event = rng.random()
    rater = rng.choice(raters)
    if event < 0.04 and len(raters) > 3:
        raters.remove(rater)
        User.objects.filter(pk=rater.pk).delete()
    elif event < 0.10:
        counted = rng.random() < 0.5
        Rating.objects.filter(campaign=campaign, rater=rater).update(counted=counted)
    elif event < 0.14 and (weight := Weight.objects.filter(campaign=campaign, n__gte=2).first()):
        lost = Rating.objects.filter(
            campaign=campaign, slot__reference_id=weight.reference_id
        ).last()
        seen = weight.scores_seen.rsplit(",", 1)[0]
        Weight.objects.filter(pk=weight.pk).update(n=weight.n - 1, scores_seen=seen)
        assert lost is not None  # the weight's n counts it
    elif (lease := rating_next(campaign=campaign, rater=rater)) is not None:
        if event < 0.2:
            rating_pass(rating_id=lease.pk, rater=rater)
        else:
            score = min(5, max(1, round(rng.gauss(3 + leniency[rater.pk], 1.2))))
            rating_submit(rating_id=lease.pk, rater=rater, score=score)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_incremental_recompute_matches_the_full_one_bit_for_bit(seed, busy_campaign, make_rater):
    rng = random.Random(seed)
    raters = [make_rater(busy_campaign) for _ in range(6)]
    leniency = {rater.pk: rng.uniform(-1.5, 1.5) for rater in raters}
    for step in range(examples(120)):
        one_step(rng, busy_campaign, raters, leniency)
        if step % rng.choice([1, 3, 7]) == 0:
            weights_recompute_campaign(campaign_id=busy_campaign.pk)
            assert stored(busy_campaign) == full_recompute_oracle(busy_campaign), step
    weights_recompute_campaign(campaign_id=busy_campaign.pk)
    incremental = stored(busy_campaign)
    assert any(row[0] >= 2 for row in incremental.values())
    weights_recompute_campaign(campaign_id=busy_campaign.pk, full=True)
    assert stored(busy_campaign) == incremental == full_recompute_oracle(busy_campaign)


def test_a_raters_new_rating_moves_the_z_weights_of_everything_they_rated(
    busy_campaign, make_rater
):
    a, b = make_rater(busy_campaign), make_rater(busy_campaign)
    for rater, score in ((a, 2), (a, 4), (b, 3), (b, 5)):
        lease = rating_next(campaign=busy_campaign, rater=rater)
        rating_submit(rating_id=lease.pk, rater=rater, score=score)
    weights_recompute_campaign(campaign_id=busy_campaign.pk)
    before = stored(busy_campaign)
    lease = rating_next(campaign=busy_campaign, rater=a)
    rating_submit(rating_id=lease.pk, rater=a, score=5)
    weights_recompute_campaign(campaign_id=busy_campaign.pk)
    after = stored(busy_campaign)
    assert after == full_recompute_oracle(busy_campaign)
    moved = {ref for ref in before if before[ref][6] != after[ref][6]}
    rated_by_a = Rating.objects.filter(rater=a, status="done").values_list(
        "slot__reference", flat=True
    )
    assert set(rated_by_a) - {lease.slot.reference_id} <= moved


def rate_all(campaign, references, raters, rng) -> None:
    now = timezone.now()
    ratings = []
    for reference in references:
        for rater in raters:
            slot = Slot.objects.get(campaign=campaign, reference=reference)
            rating = Rating(campaign=campaign, slot=slot, rater=rater, status="done")
            rating.score, rating.started_at, rating.finished_at = rng.randint(1, 5), now, now
            ratings.append(rating)
    Rating.objects.bulk_create(ratings)


def queries_of_recompute(campaign, django_assert_max_num_queries, **options) -> int:
    with django_assert_max_num_queries(100) as queries:
        weights_recompute_campaign(campaign_id=campaign.pk, **options)
    return len(queries)


@pytest.mark.parametrize("full", [False, True])
def test_the_recompute_takes_as_many_queries_for_three_times_the_references(
    full, make_campaign, make_dataset, make_rater, django_assert_max_num_queries
):
    def counts_for(items: int) -> list[int]:
        """Queries of a first recompute, one after a rater's exclusion, one after a new
        rater rated everything."""
        rng = random.Random(items)
        dataset = make_dataset(slug=f"size{items}", data=None)
        references = add_references(dataset, items)
        campaign = make_campaign(dataset=dataset)
        raters = [make_rater(campaign) for _ in range(3)]
        rate_all(campaign, references, raters, rng)
        counts = [queries_of_recompute(campaign, django_assert_max_num_queries, full=full)]
        Rating.objects.filter(rater=raters[0]).update(counted=False)
        counts.append(queries_of_recompute(campaign, django_assert_max_num_queries, full=full))
        rate_all(campaign, references, [make_rater(campaign)], rng)
        counts.append(queries_of_recompute(campaign, django_assert_max_num_queries, full=full))
        assert stored(campaign) == full_recompute_oracle(campaign)
        return counts

    assert counts_for(5) == counts_for(15)
