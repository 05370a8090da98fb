"""The owner's campaign dashboard: who may see it, and what it shows."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotate.datasets.models import Reference
from annotate.rating.models import CampaignRater, Rating, Slot
from annotate.rating.selectors.agreement import campaign_agreement
from annotate.rating.selectors.dashboard import (
    flagged_units,
    raters_overview,
    ratings_per_hour,
    widest_disagreement,
)
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.ratings import rating_pass, rating_submit
from annotate.rating.services.weights import weights_recompute_campaign

pytestmark = pytest.mark.django_db


def answer(campaign, rater, reference, score, *, at=None, status="done", flag="", counted=True):
    at = at or timezone.now()
    return Rating.objects.create(
        campaign=campaign,
        slot=Slot.objects.get(campaign=campaign, reference=reference),
        rater=rater,
        status=status,
        score=score,
        flag=flag,
        counted=counted,
        started_at=at - timedelta(seconds=5),
        finished_at=at,
    )


@pytest.fixture
def campaign(make_campaign):
    return make_campaign(name="Round one", ratings_per_unit=2)


@pytest.fixture
def campaign_rater(campaign, make_rater):
    return make_rater(campaign)


@pytest.mark.parametrize(
    "who, status",
    [("owner", 200), ("staff", 200), ("other", 404), ("campaign_rater", 404), ("anonymous", 302)],
)
def test_only_the_owner_and_staff_see_the_dashboard(campaign, client_for, user_named, who, status):
    user = user_named(who)
    response = client_for(user).get(reverse("campaign-dashboard", args=[campaign.pk]))
    assert response.status_code == status
    if status == 302:
        assert response["Location"].startswith(reverse("login"))


def test_an_empty_campaign_has_a_dashboard(campaign, owner, client_for):
    page = client_for(owner).get(reverse("campaign-dashboard", args=[campaign.pk])).content
    page = page.decode()
    assert "Round one" in page and "No raters yet" in page and "No data yet" in page
    assert f"/r/{campaign.token}/" in page and "PROLIFIC_PID=" in page
    assert reverse("campaign-ratings-csv", args=[campaign.pk]) in page
    assert reverse("campaign-ratings-jsonl", args=[campaign.pk]) in page


def test_the_dashboard_shows_progress_raters_agreement_and_charts(
    campaign, make_rater, owner, client_for
):
    a, b = make_rater(campaign), make_rater(campaign)
    for rater, score in ((a, 5), (b, 4)):
        while (lease := rating_next(campaign=campaign, rater=rater)) is not None:
            rating_submit(rating_id=lease.pk, rater=rater, score=score if lease.pk % 2 else 2)
    CampaignRater.objects.filter(rater=b).update(
        qc_status="failed", qc_reasons=["Answered too fast: 0.4 s per rating in the median."]
    )
    weights_recompute_campaign(campaign_id=campaign.pk)
    response = client_for(owner).get(reverse("campaign-dashboard", args=[campaign.pk]))
    page = response.content.decode()
    assert 'value="100"' in page and "12 of 12 ratings" in page
    assert "Answered too fast: 0.4 s" in page and "Failed" in page
    assert 'id="alpha-interval"' in page
    assert page.count("data-chart ") == 2 and '"title": "Weights of references"' in page
    hourly = response.context["hourly_chart"]["data"]["values"]
    assert sum(row["count"] for row in hourly) == 12
    weights = response.context["weights_chart"]["data"]["values"]
    assert len(weights) == 20 and sum(row["count"] for row in weights) == Reference.objects.count()
    assert "Widest disagreement" in page


def test_ratings_per_hour_fills_empty_hours(campaign, make_rater):
    rater = make_rater(campaign)
    refs = list(Reference.objects.order_by("pk"))
    now = timezone.now().replace(minute=30)
    answer(campaign, rater, refs[0], 3, at=now - timedelta(hours=3))
    answer(campaign, rater, refs[1], 3, at=now)
    answer(campaign, rater, refs[2], 3, at=now)
    counts = [n for _, n in ratings_per_hour(campaign=campaign)]
    assert counts == [1, 0, 0, 2]


def test_ratings_per_hour_keeps_to_the_window(campaign, make_rater):
    rater = make_rater(campaign)
    refs = list(Reference.objects.order_by("pk"))
    now = timezone.now()
    answer(campaign, rater, refs[0], 3, at=now - timedelta(days=5))
    answer(campaign, rater, refs[1], 3, at=now)
    hours = ratings_per_hour(campaign=campaign, hours=4)
    assert [n for _, n in hours] == [1]  # the old answer is outside; no empty hours before


def test_no_answers_no_hours(campaign):
    assert ratings_per_hour(campaign=campaign) == []


def test_widest_disagreement_comes_first(campaign, make_rater):
    a, b = make_rater(campaign), make_rater(campaign)
    refs = list(Reference.objects.order_by("pk"))
    for ref, (x, y) in zip(refs[:3], [(1, 5), (3, 4), (2, 2)]):
        answer(campaign, a, ref, x)
        answer(campaign, b, ref, y)
    answer(campaign, a, refs[3], 5)  # once: no spread to speak of
    weights_recompute_campaign(campaign_id=campaign.pk)
    widest = list(widest_disagreement(campaign=campaign))
    assert [w.reference_id for w in widest] == [refs[0].pk, refs[1].pk, refs[2].pk]


def test_flagged_references_are_counted_by_flag(campaign, make_rater):
    raters = [make_rater(campaign) for _ in range(3)]
    refs = list(Reference.objects.order_by("pk"))
    answer(campaign, raters[0], refs[1], None, status="flagged", flag="offensive")
    answer(campaign, raters[1], refs[1], None, status="flagged", flag="offensive")
    answer(campaign, raters[2], refs[2], None, status="flagged", flag="broken")
    rows = flagged_units(campaign=campaign)
    assert [(r["text"], r["flag"], r["times"]) for r in rows] == [
        (refs[1].text, "offensive", 2),
        (refs[2].text, "broken", 1),
    ]


def test_raters_overview_counts_answers_and_counted_ratings(campaign, make_rater):
    rater = make_rater(campaign)
    lease = rating_next(campaign=campaign, rater=rater)
    rating_submit(rating_id=lease.pk, rater=rater, score=4)
    lease = rating_next(campaign=campaign, rater=rater)
    rating_pass(rating_id=lease.pk, rater=rater)
    rating_next(campaign=campaign, rater=rater)  # a lease is no answer
    [row] = raters_overview(campaign=campaign, agreement=campaign_agreement(campaign=campaign))
    assert (row.answered, row.counted) == (2, 1)
    assert row.pseudonym.startswith("r-") and row.completion_code_valid is None


def test_progress_counts_counted_ratings_up_to_each_slots_wanted_number(campaign, make_rater):
    from annotate.rating.selectors.campaigns import campaign_progress

    a, b, c, failed = (make_rater(campaign) for _ in range(4))
    refs = list(Reference.objects.order_by("pk"))
    for rater in (a, b, c):  # three ratings where two are wanted: two count towards progress
        answer(campaign, rater, refs[0], 4)
    answer(campaign, a, refs[1], 3)
    answer(campaign, failed, refs[2], 5, counted=False)  # excluded by quality control
    answer(campaign, b, refs[3], None, status="leased")
    progress = campaign_progress(campaign=campaign)
    assert (progress.total, progress.units, progress.done) == (12, 6, 3)
    assert (progress.complete_units, progress.leased, progress.raters) == (1, 1, 4)
