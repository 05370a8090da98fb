"""Undo of the rater's last answer: within the lease duration after it, only the last one, only
their own; the weight of its reference follows, and the answer is leased to them again."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from annotate.rating.models import Campaign, CampaignStatus, Rating, RatingStatus, Slot, Weight
from annotate.rating.selectors.rater import rating_undoable
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.ratings import rating_pass, rating_submit
from annotate.rating.services.undo import rating_undo
from tests.annotate.rater_pages_kit import answer, rate_page

pytestmark = pytest.mark.django_db


def rate(campaign, rater, score) -> Rating:
    rating = rating_next(campaign=campaign, rater=rater)
    return rating_submit(rating_id=rating.pk, rater=rater, score=score)


def age(rating: Rating, minutes: float) -> None:
    """Move the answer `minutes` into the past."""
    finished = timezone.now() - timedelta(minutes=minutes)
    Rating.objects.filter(pk=rating.pk).update(finished_at=finished)


def test_the_last_answer_is_leased_again_and_its_weight_recomputed(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    rater = make_rater(campaign)
    answered = rate(campaign, rater, 5)
    reference_id = answered.slot.reference_id
    assert Weight.objects.get(reference_id=reference_id).weight == 1.0
    following = rating_next(campaign=campaign, rater=rater)  # the page leases the next at once

    undone = rating_undo(rating_id=answered.pk, rater=rater)

    assert undone.status == RatingStatus.LEASED and undone.score is None
    assert undone.lease_expires_at > timezone.now()
    weight = Weight.objects.get(reference_id=reference_id)
    assert weight.n == 0 and weight.weight is None
    assert not Rating.objects.filter(pk=following.pk).exists()  # back in the pool
    assert Slot.objects.get(pk=following.slot_id).active == 0
    assert Slot.objects.get(pk=answered.slot_id).active == 1  # its place is still held
    assert rating_next(campaign=campaign, rater=rater) == undone  # the current item again
    rating_submit(rating_id=undone.pk, rater=rater, score=1)
    assert Weight.objects.get(reference_id=reference_id).weight == -1.0


def test_undoing_the_answer_that_completed_the_campaign_reopens_it(make_campaign, make_rater):
    campaign = make_campaign(ratings_per_unit=1)
    rater = make_rater(campaign)
    last = None
    while (lease := rating_next(campaign=campaign, rater=rater)) is not None:
        last = rating_submit(rating_id=lease.pk, rater=rater, score=3)
    assert Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.COMPLETE

    rating_undo(rating_id=last.pk, rater=rater)
    assert Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.OPEN  # not a lag

    rating_submit(rating_id=last.pk, rater=rater, score=4)
    assert Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.COMPLETE


def test_an_answer_cannot_be_undone_after_the_lease_duration(make_campaign, make_rater):
    campaign = make_campaign(lease_minutes=10)
    rater = make_rater(campaign)
    answered = rate(campaign, rater, 4)
    age(answered, 9)
    assert rating_undoable(campaign=campaign, rater=rater) is not None
    age(answered, 10)
    assert rating_undoable(campaign=campaign, rater=rater) is None
    with pytest.raises(ValidationError, match="for 10 minutes only"):
        rating_undo(rating_id=answered.pk, rater=rater)
    assert Rating.objects.get(pk=answered.pk).score == 4


def test_only_the_most_recent_answer_can_be_undone(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    first = rate(campaign, rater, 4)
    rate(campaign, rater, 2)
    with pytest.raises(ValidationError, match="most recent"):
        rating_undo(rating_id=first.pk, rater=rater)


def test_another_raters_answer_cannot_be_undone(make_campaign, make_rater):
    campaign = make_campaign()
    rater, intruder = make_rater(campaign), make_rater(campaign)
    answered = rate(campaign, rater, 4)
    with pytest.raises(ValidationError, match="not yours"):
        rating_undo(rating_id=answered.pk, rater=intruder)
    assert Rating.objects.get(pk=answered.pk).status == RatingStatus.DONE


def test_skips_set_aside_answers_and_closed_campaigns_refuse(make_campaign, make_rater):
    campaign = make_campaign()
    rater = make_rater(campaign)
    lease = rating_next(campaign=campaign, rater=rater)
    skipped = rating_pass(rating_id=lease.pk, rater=rater)
    with pytest.raises(ValidationError, match="skip or a flag"):
        rating_undo(rating_id=skipped.pk, rater=rater)
    answered = rate(campaign, rater, 3)
    Rating.objects.filter(pk=answered.pk).update(counted=False)  # quality control failed them
    with pytest.raises(ValidationError, match="Quality control"):
        rating_undo(rating_id=answered.pk, rater=rater)
    Rating.objects.filter(pk=answered.pk).update(counted=True)
    campaign.status = "closed"
    campaign.save(update_fields=["status"])
    with pytest.raises(ValidationError, match="no longer takes answers"):
        rating_undo(rating_id=answered.pk, rater=rater)


def test_the_rate_page_offers_undo_and_the_key(make_campaign, make_rater, client_for):
    campaign = make_campaign()
    rater = make_rater(campaign)
    client = client_for(rater)
    page = rate_page(client, campaign).content.decode()
    assert 'id="undo"' not in page  # nothing answered yet
    first = Rating.objects.get(status=RatingStatus.LEASED)
    page = answer(client, first, {"score": "4"}, follow=True).content.decode()
    assert reverse("campaign-undo", args=[campaign.pk, first.pk]) in page
    assert 'data-key="u"' in page and "you gave 4" in page
    second = Rating.objects.get(status=RatingStatus.LEASED)
    answer(client, second, {"score": "2"})

    response = client.post(reverse("campaign-undo", args=[campaign.pk, second.pk]), follow=True)
    page = response.content.decode()
    assert "answer it again" in page
    assert Rating.objects.get(pk=second.pk).status == RatingStatus.LEASED
    assert response.context["rating"].pk == second.pk  # shown as the current item
    # The answer before (on the first item) is not offered from the undone one's page.
    assert 'id="undo"' not in page and "you gave 4" not in page
    page = answer(client, second, {"score": "5"}, follow=True).content.decode()
    assert reverse("campaign-undo", args=[campaign.pk, second.pk]) in page
    assert "you gave 5" in page


@pytest.mark.parametrize(
    "who, status, undone",
    [("rater", 302, True), ("other_rater", 302, False), ("owner", 404, False),
     ("anonymous", 302, False)],
)  # fmt: skip
def test_who_may_undo_on_the_page(
    make_campaign, make_rater, client_for, user_named, who, status, undone
):
    campaign = make_campaign()
    rater, other_rater = make_rater(campaign), make_rater(campaign)
    answered = rate(campaign, rater, 4)
    user = {"rater": rater, "other_rater": other_rater}.get(who) or user_named(who)
    response = client_for(user).post(reverse("campaign-undo", args=[campaign.pk, answered.pk]))
    assert response.status_code == status
    assert (Rating.objects.get(pk=answered.pk).status == RatingStatus.LEASED) == undone


def test_the_page_undo_is_post_only(make_campaign, make_rater, client_for):
    campaign = make_campaign()
    rater = make_rater(campaign)
    answered = rate(campaign, rater, 4)
    url = reverse("campaign-undo", args=[campaign.pk, answered.pk])
    assert client_for(rater).get(url).status_code == 405


@pytest.mark.parametrize(
    "who, status", [("rater", 200), ("other_rater", 404), ("owner", 404), ("anonymous", 401)]
)
def test_who_may_undo_by_the_api(make_campaign, make_rater, client_for, user_named, who, status):
    campaign = make_campaign()
    rater, other_rater = make_rater(campaign), make_rater(campaign)
    answered = rate(campaign, rater, 4)
    user = {"rater": rater, "other_rater": other_rater}.get(who) or user_named(who)
    response = client_for(user).post(reverse("api-rating-undo", args=[answered.pk]))
    assert response.status_code in ((401, 403) if status == 401 else (status,))
    if status == 200:
        assert response.json()["rating_id"] == answered.pk
        assert response.json()["lease_expires_at"]
    assert (Rating.objects.get(pk=answered.pk).status == RatingStatus.LEASED) == (status == 200)


def test_the_api_says_why_it_is_too_late(make_campaign, make_rater, client_for):
    campaign = make_campaign(lease_minutes=5)
    rater = make_rater(campaign)
    answered = rate(campaign, rater, 4)
    age(answered, 6)
    response = client_for(rater).post(reverse("api-rating-undo", args=[answered.pk]))
    assert response.status_code == 400
    assert "5 minutes" in str(response.json())
