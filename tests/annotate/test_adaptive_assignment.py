"""Adaptive assignment and the rating budget, on the one rating engine: the next reference is the
one whose rating is worth most to the leaderboards (a share stays uniform), the value follows
each rating at once, a budget completes the campaign, and only the owner changes either."""

import random
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from annotate.rating import adaptive_math, sensitivity_sources
from annotate.rating.models import Campaign, Rating, Slot
from annotate.rating.selectors.lifecycle import Reason, budget_left, rater_nothing_left
from annotate.rating.sensitivity_sources import SensitivityReport
from annotate.rating.services.adaptive import (
    MAX_AGE_SECONDS,
    campaign_priorities_refresh,
    priorities_refresh_stale,
    stale_adaptive_campaign_ids,
)
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_assignment_update
from annotate.rating.services.ratings import rating_submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def boards_say(monkeypatch):
    """A stand-in for the leaderboards' report (their own tests cover how they compute it):
    the terms it returns per live reference id, set by the test."""
    said: dict[int, float] = {}

    def source(dataset_id: int) -> SensitivityReport:
        return SensitivityReport(dict(said), [{"name": "board", "pairs": 1}])

    monkeypatch.setattr(sensitivity_sources, "_SOURCES", [source])
    return said


def _slots(campaign):
    return list(Slot.objects.filter(campaign=campaign).order_by("pk"))


def _adaptive(make_campaign, boards_say, says, *, share, per_unit):
    """An adaptive campaign whose boards give the slots at the positions in `says` those
    sensitivities, with its priorities refreshed; returns it and its slots in order."""
    campaign = make_campaign(assignment="adaptive", uniform_share=share, ratings_per_unit=per_unit)
    slots = _slots(campaign)
    boards_say.update({slots[k].reference_id: value for k, value in says.items()})
    campaign_priorities_refresh(campaign_id=campaign.pk)
    campaign.refresh_from_db()
    return campaign, slots


def test_adaptive_takes_the_most_valuable_reference_first(make_campaign, make_rater, boards_say):
    campaign, slots = _adaptive(make_campaign, boards_say, {4: 5.0, 2: 1.0}, share=0, per_unit=3)
    raters = [make_rater(campaign) for _ in range(3)]
    firsts = [rating_next(campaign=campaign, rater=r).slot_id for r in raters]
    # The most sensitive reference is worth most while few have rated it; as leases fill it its
    # value drops below the next one's: sensitivity / ((a + n)(a + n + 1)).
    values = [s.sensitivity for s in Slot.objects.filter(pk__in=[slots[4].pk, slots[2].pk])]
    assert firsts[0] == slots[4].pk
    assert set(firsts) <= {slots[4].pk, slots[2].pk}
    assert all(v > 0 for v in values)


def test_the_value_follows_each_rating_as_adaptive_math_says(make_campaign, make_rater, boards_say):
    campaign, slots = _adaptive(make_campaign, boards_say, {0: 1.0, 1: 0.3}, share=0, per_unit=5)
    a = campaign.adaptive_a
    sens = {s.pk: s.sensitivity for s in Slot.objects.filter(campaign=campaign)}
    order = []
    for _ in range(6):
        rater = make_rater(campaign)
        lease = rating_next(campaign=campaign, rater=rater)
        order.append(lease.slot_id)
    counts = {slots[0].pk: 0, slots[1].pk: 0}
    for slot_id in order:
        expected = max(
            counts,
            key=lambda pk: (adaptive_math.rating_value(sens[pk], counts[pk], a), -pk),
        )
        assert slot_id == expected
        counts[slot_id] += 1


def test_without_any_board_adaptive_is_uniform(make_campaign, make_rater, boards_say):
    campaign = make_campaign(assignment="adaptive", uniform_share=0.0, ratings_per_unit=1)
    campaign_priorities_refresh(campaign_id=campaign.pk)
    rater = make_rater(campaign)
    seen = []
    while (lease := rating_next(campaign=campaign, rater=rater)) is not None:
        seen.append(lease.slot_id)
        rating_submit(rating_id=lease.pk, rater=rater, score=4)
    assert seen == [s.pk for s in _slots(campaign)]


def test_the_uniform_share_is_kept(make_campaign, make_rater, boards_say, monkeypatch):
    campaign, slots = _adaptive(make_campaign, boards_say, {5: 9.0}, share=0.5, per_unit=3)
    draws = iter([0.7, 0.2])  # ≥ share: adaptive; < share: uniform
    monkeypatch.setattr(random, "random", lambda: next(draws))
    adaptive_pick = rating_next(campaign=campaign, rater=make_rater(campaign))
    uniform_pick = rating_next(campaign=campaign, rater=make_rater(campaign))
    assert adaptive_pick.slot_id == slots[5].pk
    assert uniform_pick.slot_id == slots[0].pk


def test_sensitivities_combine_the_boards_with_each_references_variance(
    make_campaign, make_rater, boards_say
):
    campaign = make_campaign(assignment="adaptive", uniform_share=1.0, ratings_per_unit=3)
    slots = _slots(campaign)
    boards_say.update({slots[0].reference_id: 1.0, slots[1].reference_id: 1.0})
    # Three raters agree on the first reference and disagree on the second.
    scores = {slots[0].pk: [4, 4, 4], slots[1].pk: [1, 5, 3]}
    for k in range(3):
        rater = make_rater(campaign)
        while (lease := rating_next(campaign=campaign, rater=rater)) is not None:
            score = scores.get(lease.slot_id, [3, 3, 3])[k]
            rating_submit(rating_id=lease.pk, rater=rater, score=score)
    campaign_priorities_refresh(campaign_id=campaign.pk)
    stored = {s.pk: s.sensitivity for s in Slot.objects.filter(campaign=campaign)}
    pools = [[4.0, 4.0, 4.0], [1.0, 5.0, 3.0]] + [[3.0, 3.0, 3.0]] * 4
    model = adaptive_math.rating_model(pools)
    variances = adaptive_math.reference_variances(pools, model)
    expected = adaptive_math.sensitivities(
        [1.0, 1.0, 0, 0, 0, 0], variances, campaign.scale_min, campaign.scale_max
    )
    assert [stored[s.pk] for s in slots] == pytest.approx(list(expected), rel=1e-12)
    assert stored[slots[1].pk] > stored[slots[0].pk] > 0
    campaign.refresh_from_db()
    assert campaign.adaptive_a == pytest.approx(model.a)
    assert campaign.priorities_summary["references_that_matter"] == 2


def test_a_budget_completes_the_campaign_and_tells_the_rater(make_campaign, make_rater):
    campaign = make_campaign(rating_budget=4, ratings_per_unit=3)
    rater, late = make_rater(campaign), make_rater(campaign)
    for _ in range(4):
        lease = rating_next(campaign=campaign, rater=rater)
        rating_submit(rating_id=lease.pk, rater=rater, score=3)
    assert budget_left(campaign=campaign) == 0
    assert rating_next(campaign=campaign, rater=late) is None
    campaign.refresh_from_db()
    assert campaign.status == "complete"
    assert rater_nothing_left(campaign=campaign, rater=late).reason == Reason.BUDGET
    assert Rating.objects.filter(campaign=campaign, status="done").count() == 4


def test_live_leases_use_the_budget_and_a_raised_budget_reopens(make_campaign, make_rater):
    campaign = make_campaign(rating_budget=1, ratings_per_unit=3)
    first, second = make_rater(campaign), make_rater(campaign)
    lease = rating_next(campaign=campaign, rater=first)
    assert budget_left(campaign=campaign) == 0
    assert rating_next(campaign=campaign, rater=second) is None
    rating_submit(rating_id=lease.pk, rater=first, score=2)
    campaign.refresh_from_db()
    assert campaign.status == "complete"
    campaign = campaign_assignment_update(campaign=campaign, user=campaign.owner, rating_budget=3)
    assert campaign.status == "open"
    assert rating_next(campaign=campaign, rater=second) is not None


def test_adaptive_is_refused_on_outputs_and_bad_values_name_their_field(make_campaign, owner):
    campaign = make_campaign()
    with pytest.raises(ValidationError) as bad_share:
        campaign_assignment_update(campaign=campaign, user=owner, uniform_share=1.5)
    assert "uniform_share" in bad_share.value.message_dict
    Campaign.objects.filter(pk=campaign.pk).update(subject="outputs")  # as if it rated outputs
    with pytest.raises(ValidationError) as refused:
        campaign_assignment_update(campaign=campaign, user=owner, assignment="adaptive")
    assert "assignment" in refused.value.message_dict


def test_the_sweep_refreshes_stale_adaptive_campaigns_only(
    make_campaign, make_dataset, make_rater, boards_say, django_assert_max_num_queries
):
    adaptive_one = make_campaign(assignment="adaptive")
    make_campaign(dataset=make_dataset(slug="other"), name="uniform")
    assert priorities_refresh_stale() == 1  # never refreshed
    adaptive_one.refresh_from_db()
    refreshed = adaptive_one.priorities_refreshed_at
    assert refreshed is not None
    assert priorities_refresh_stale() == 0  # fresh now
    rater = make_rater(adaptive_one)
    lease = rating_next(campaign=adaptive_one, rater=rater)
    rating_submit(rating_id=lease.pk, rater=rater, score=4)
    Rating.objects.filter(pk=lease.pk).update(finished_at=refreshed + timedelta(seconds=1))
    assert priorities_refresh_stale() == 1  # a rating since the last refresh
    old = timezone.now() - timedelta(seconds=MAX_AGE_SECONDS + 1)
    Campaign.objects.filter(pk=adaptive_one.pk).update(priorities_refreshed_at=old)
    Rating.objects.filter(pk=lease.pk).update(finished_at=old - timedelta(seconds=1))
    with django_assert_max_num_queries(1):  # which ones: one query, however many campaigns
        stale = list(stale_adaptive_campaign_ids())
    assert stale == [adaptive_one.pk]  # not refreshed for too long


def test_owner_changes_assignment_on_the_dashboard(make_campaign, client_for, owner, boards_say):
    campaign = make_campaign()
    url = reverse("campaign-assignment", args=[campaign.pk])
    page = client_for(owner).post(
        url, {"assignment": "adaptive", "uniform_share": "0.3", "rating_budget": "10"}, follow=True
    )
    campaign.refresh_from_db()
    assert (campaign.assignment, campaign.uniform_share, campaign.rating_budget) == (
        "adaptive",
        0.3,
        10,
    )
    body = page.content.decode()
    assert "Assignment: adaptive" in body and "Budget: <strong>0</strong> of 10" in body
    bad = client_for(owner).post(url, {"assignment": "sideways", "uniform_share": "2"}, follow=True)
    text = bad.content.decode()
    assert "Assignment:" in text and "Uniform share:" in text
    campaign.refresh_from_db()
    assert campaign.assignment == "adaptive"


@pytest.mark.parametrize(
    ("who", "status"), [("owner", 302), ("other", 404), ("rater", 404), ("anonymous", 302)]
)
def test_who_may_change_the_assignment_on_the_page(
    make_campaign, client_for, user_named, who, status
):
    campaign = make_campaign()
    url = reverse("campaign-assignment", args=[campaign.pk])
    fields = {"assignment": "adaptive", "uniform_share": "0.25", "rating_budget": "0"}
    response = client_for(user_named(who)).post(url, fields)
    assert response.status_code == status
    if who == "anonymous":
        assert "/login" in response["Location"] or "/accounts/login" in response["Location"]
    campaign.refresh_from_db()
    assert campaign.assignment == ("adaptive" if who == "owner" else "uniform")


@pytest.mark.parametrize(
    ("who", "status"), [("owner", 200), ("other", 404), ("rater", 404), ("anonymous", 403)]
)
def test_who_may_change_the_assignment_through_the_api(
    make_campaign, client_for, user_named, who, status
):
    campaign = make_campaign()
    response = client_for(user_named(who)).patch(
        f"/api/v1/campaigns/{campaign.pk}/", {"rating_budget": 7}, format="json"
    )
    assert response.status_code == status
    assert Campaign.objects.get(pk=campaign.pk).rating_budget == (7 if who == "owner" else 0)


def test_the_api_names_a_bad_field(make_campaign, client_for, owner):
    campaign = make_campaign()
    response = client_for(owner).patch(
        f"/api/v1/campaigns/{campaign.pk}/", {"uniform_share": -1}, format="json"
    )
    assert response.status_code == 400
    assert "uniform_share" in response.json()
