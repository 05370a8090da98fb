"""Export of a campaign's ratings (pages and API), quality and weights API, completion codes."""

import csv
import io
import json

import pytest
from django.urls import reverse

from annotate.rating.models import CampaignRater, Rating
from annotate.rating.selectors.completion import completion_code_for
from annotate.rating.selectors.ratings_export import FIELDS, rater_pseudonym
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import crowd_rater_get_or_create
from annotate.rating.services.ratings import rating_pass, rating_submit
from tests.annotate.release_kit import shared_world

pytestmark = pytest.mark.django_db


def _rated_campaign(owner, make_dataset, make_campaign, make_rater):
    """A campaign and its two raters: one with two answers (a score and a flag) and a live
    lease; a crowd rater who passed quality control with one answer."""
    campaign = make_campaign(dataset=make_dataset(), ratings_per_unit=2)
    expert = make_rater(campaign)
    lease = rating_next(campaign=campaign, rater=expert)
    rating_submit(rating_id=lease.pk, rater=expert, score=4)
    lease = rating_next(campaign=campaign, rater=expert)
    rating_pass(rating_id=lease.pk, rater=expert, flag="broken")
    rating_next(campaign=campaign, rater=expert)
    crowd = crowd_rater_get_or_create(campaign=campaign, participant_id="PID-77")
    lease = rating_next(campaign=campaign, rater=crowd)
    rating_submit(rating_id=lease.pk, rater=crowd, score=2)
    CampaignRater.objects.filter(rater=crowd).update(qc_status="passed")
    return campaign, (expert, crowd)


# Built once for the module (every test's campaign is the rated one).
shared, world = shared_world(_rated_campaign)


@pytest.fixture
def campaign(world):
    return world[0]


@pytest.fixture
def rated(world):
    """The campaign's two raters: the expert, then the crowd rater."""
    return world[1]


def body(response):
    return b"".join(response.streaming_content).decode()


@pytest.fixture
def campaign_rater(campaign, make_rater):
    return make_rater(campaign)


# --- Authorization ----------------------------------------------------------------------------
# Each owner's page or API, and what it answers an anonymous visitor: pages send them to log in.
OWNER_ONLY = [
    ("campaign-ratings-csv", 302),
    ("campaign-ratings-jsonl", 302),
    ("api-campaign-ratings", 403),
    ("api-campaign-quality", 403),
    ("api-campaign-weights", 403),
]


@pytest.mark.parametrize("name, anonymous", OWNER_ONLY)
@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("staff", 200), ("other", 404), ("campaign_rater", 404)]
)
def test_exports_and_quality_are_for_the_owner(
    campaign, client_for, user_named, name, anonymous, who, status
):
    user = user_named(who)
    assert client_for(user).get(reverse(name, args=[campaign.pk])).status_code == status
    assert client_for(None).get(reverse(name, args=[campaign.pk])).status_code == anonymous


def test_token_authentication_works_for_the_export(campaign, owner):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")
    response = client.get(reverse("api-campaign-ratings", args=[campaign.pk]) + "?format=jsonl")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/jsonl")


# --- Content ----------------------------------------------------------------------------------
def test_the_csv_export_has_every_answer_and_no_lease(campaign, rated, owner, client_for):
    response = client_for(owner).get(reverse("campaign-ratings-csv", args=[campaign.pk]))
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(body(response))))
    assert list(rows[0]) == FIELDS
    assert len(rows) == 3 == Rating.objects.exclude(status="leased").count()
    by_status = {row["status"]: row for row in rows if row["rater"] != rows[-1]["rater"]}
    assert by_status["done"]["score"] == "4" and by_status["done"]["counted"] == "true"
    assert by_status["flagged"]["flag"] == "broken" and by_status["flagged"]["score"] == ""
    assert float(by_status["done"]["seconds"]) >= 0
    assert by_status["done"]["item_external_id"] in {"c1", "c2", "c3"}


def test_raters_are_pseudonymous_and_stable(campaign, make_campaign, rated, owner, client_for):
    expert, crowd = rated
    response = client_for(owner).get(reverse("campaign-ratings-jsonl", args=[campaign.pk]))
    rows = [json.loads(line) for line in body(response).splitlines()]
    text = json.dumps(rows)
    assert expert.username not in text and crowd.username not in text
    assert {r["rater"] for r in rows} == {
        rater_pseudonym(campaign=campaign, rater_id=expert.pk),
        rater_pseudonym(campaign=campaign, rater_id=crowd.pk),
    }
    assert rater_pseudonym(campaign=campaign, rater_id=expert.pk) == rater_pseudonym(
        campaign=campaign, rater_id=expert.pk
    )
    another = make_campaign(dataset=campaign.dataset, name="Another")
    assert rater_pseudonym(campaign=another, rater_id=expert.pk) != rater_pseudonym(
        campaign=campaign, rater_id=expert.pk
    )


def test_the_export_carries_crowd_ids_qc_and_code_validity(campaign, rated, owner, client_for):
    url = reverse("api-campaign-ratings", args=[campaign.pk]) + "?format=jsonl"
    rows = [json.loads(line) for line in body(client_for(owner).get(url)).splitlines()]
    mine = [r for r in rows if r["crowd_id"] == "PID-77"]
    assert len(mine) == 1
    assert mine[0]["completion_code_valid"] is True and mine[0]["rater_qc_status"] == "passed"
    others = [r for r in rows if r["crowd_id"] == ""]
    assert {r["completion_code_valid"] for r in others} == {None}
    assert {r["rater_qc_status"] for r in others} == {"pending"}


def test_the_api_export_is_csv_by_default(campaign, rated, owner, client_for):
    response = client_for(owner).get(reverse("api-campaign-ratings", args=[campaign.pk]))
    assert response["Content-Type"].startswith("text/csv")
    assert body(response).splitlines()[0] == ",".join(FIELDS)


def test_an_unknown_export_format_is_refused(campaign, owner, client_for):
    url = reverse("api-campaign-ratings", args=[campaign.pk]) + "?format=xlsx"
    response = client_for(owner).get(url)
    assert response.status_code == 406  # the export is there; that format is not
    assert "'xlsx'" in response.json()["detail"] and "csv" in response.json()["detail"]


def test_the_quality_api_reports_raters_and_agreement(campaign, rated, owner, client_for):
    expert, _ = rated
    data = client_for(owner).get(reverse("api-campaign-quality", args=[campaign.pk])).json()
    assert set(data["agreement"]) == {
        "alpha_interval",
        "alpha_ordinal",
        "units",
        "ratings",
        "raters",
    }
    by_crowd = {r["crowd_id"]: r for r in data["raters"]}
    assert by_crowd["PID-77"]["qc_status"] == "passed"
    assert by_crowd["PID-77"]["completion_code_valid"] is True
    assert by_crowd[""]["answered"] == 2 and by_crowd[""]["counted"] == 1
    assert by_crowd[""]["rater"] == rater_pseudonym(campaign=campaign, rater_id=expert.pk)


def test_the_weights_api_is_paginated_with_intervals(campaign, rated, owner, client_for):
    data = client_for(owner).get(reverse("api-campaign-weights", args=[campaign.pk])).json()
    assert data["count"] == len(data["results"]) >= 1
    weight = data["results"][0]
    for key in ("reference_id", "item_external_id", "n", "sd", "weight", "ci_low", "z_weight"):
        assert key in weight


@pytest.mark.slow  # the whole OpenAPI schema: make test and CI, not test-fast
def test_the_endpoints_are_in_the_openapi_schema(client_for):
    schema = client_for(None).get(reverse("api-schema")).content.decode()
    for path in ("ratings", "quality", "weights"):
        assert f"/api/v1/campaigns/{{campaign_id}}/{path}/" in schema


# --- Completion codes -------------------------------------------------------------------------
def test_a_completion_code_only_after_passing(campaign):
    user = crowd_rater_get_or_create(campaign=campaign, participant_id="PID-1")
    membership = CampaignRater.objects.get(rater=user)
    assert completion_code_for(campaign=campaign, membership=membership) is None
    membership.qc_status = "passed"
    code = completion_code_for(campaign=campaign, membership=membership)
    assert code and len(code) == 10
    membership.qc_status = "failed"
    assert completion_code_for(campaign=campaign, membership=membership) is None


def test_raters_without_a_crowd_id_get_no_code(campaign, make_rater):
    membership = CampaignRater.objects.get(rater=make_rater(campaign))
    membership.qc_status = "passed"
    assert completion_code_for(campaign=campaign, membership=membership) is None
