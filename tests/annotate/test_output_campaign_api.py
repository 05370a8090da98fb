"""Campaigns on system outputs through the one campaigns API: create, join, next, answer,
progress, results, export and quality control — and who may do what."""

import csv
import io

import pytest

from annotate.rating.models import Campaign, Rating
from tests.annotate.output_campaign_kit import output_eval_dataset

pytestmark = pytest.mark.django_db

API = "/api/v1"
PAIRWISE = {
    "dataset": "he",
    "split": "test",
    "subject": "outputs",
    "mode": "pairwise",
    "name": "AB",
    "systems": ["mt", "rnn"],
    "ratings_per_unit": 1,
    "control_rate": 0,
}


@pytest.fixture
def dataset_systems(make_dataset, owner):
    return output_eval_dataset(make_dataset, owner)


def _create(client, **changes):
    return client.post(f"{API}/campaigns/", {**PAIRWISE, **changes}, format="json")


@pytest.fixture
def campaign(dataset_systems, owner, client_for):
    response = _create(client_for(owner))
    assert response.status_code == 201, response.json()
    return Campaign.objects.get(pk=response.json()["id"])


def _join(client, campaign):
    return client.post(f"{API}/campaigns/join/", {"token": campaign.token}, format="json")


def _answer(client, rating_id, **body):
    return client.post(f"{API}/ratings/{rating_id}/", body, format="json")


def test_the_owner_creates_and_lists_campaigns(campaign, owner, client_for):
    listed = client_for(owner).get(f"{API}/campaigns/").json()["results"]
    assert [c["id"] for c in listed] == [campaign.pk]
    assert listed[0]["subject"] == "outputs" and listed[0]["mode"] == "pairwise"
    assert listed[0]["systems"] == ["mt", "rnn"] and listed[0]["join_url"].endswith(
        f"/r/{campaign.token}/"
    )
    assert campaign.slots.count() == 2


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"systems": ["nope"]}, "systems", "No such system: nope"),
        ({"systems": ["mt"]}, "systems", "two or more"),
        ({"split": None}, "split", "split"),
        ({"subject": "references"}, "mode", "pairwise compares system outputs"),
        ({"subject": "references", "mode": "likert"}, "systems", "rates no systems"),
        ({"mode": "sideways"}, "mode", "valid choice"),
    ],
)
def test_creating_names_the_field_at_fault(
    dataset_systems, owner, client_for, changes, field, words
):
    response = _create(client_for(owner), **changes)
    assert response.status_code == 400 and words in str(response.json()[field])
    assert not Campaign.objects.exists()


def test_a_rater_joins_leases_answers_and_is_done(
    campaign, make_rater, client_for, django_capture_on_commit_callbacks
):
    client = client_for(make_rater())
    joined = _join(client, campaign).json()
    assert joined["id"] == campaign.pk and joined["join_url"] is None
    lease = client.post(f"{API}/campaigns/{campaign.pk}/next/").json()
    assert len(lease["texts"]) == 2 and lease["scale"] == [1, 2, 3, 4, 5]
    assert lease["anchors"][0] == "A much better" and lease["item"]["message"]
    again = client.post(f"{API}/campaigns/{campaign.pk}/next/").json()
    assert again["rating_id"] == lease["rating_id"]  # resume: the same lease
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        answered = _answer(client, lease["rating_id"], score=5).json()
    assert answered["status"] == "done" and len(callbacks) == 1  # quality control, no weights
    rating = Rating.objects.get(pk=lease["rating_id"])
    assert rating.preference == (-2 if rating.a_on_left else 2)
    second = client.post(f"{API}/campaigns/{campaign.pk}/next/").json()
    assert _answer(client, second["rating_id"], skip=True).json()["status"] == "skipped"
    assert client.post(f"{API}/campaigns/{campaign.pk}/next/").json()["nothing_left"] is True
    mine = client.get(f"{API}/campaigns/{campaign.pk}/progress/").json()
    assert mine == {"done": 2, "quota": None, "campaign_done": 1, "campaign_total": 2}


def test_the_texts_follow_the_side_drawn(campaign, make_rater, client_for):
    client = client_for(make_rater())
    _join(client, campaign)
    lease = client.post(f"{API}/campaigns/{campaign.pk}/next/").json()
    rating = Rating.objects.select_related("slot__system_a", "slot__system_b").get(
        pk=lease["rating_id"]
    )
    outputs = {o.system_id: o.text for o in rating.slot.item.system_outputs.all()}
    a, b = outputs[rating.slot.system_a_id], outputs[rating.slot.system_b_id]
    assert lease["texts"] == ([a, b] if rating.a_on_left else [b, a])


def test_an_out_of_scale_answer_is_refused(campaign, make_rater, client_for):
    client = client_for(make_rater())
    _join(client, campaign)
    lease = client.post(f"{API}/campaigns/{campaign.pk}/next/").json()
    response = _answer(client, lease["rating_id"], score=6)
    assert response.status_code == 400 and "score" in response.json()


def test_raters_see_only_their_own_work(campaign, owner, other, make_rater, client_for):
    first, second = make_rater(), make_rater()
    for user in (first, second):
        _join(client_for(user), campaign)
    lease = client_for(first).post(f"{API}/campaigns/{campaign.pk}/next/").json()
    assert _answer(client_for(second), lease["rating_id"], score=3).status_code == 404
    assert _answer(client_for(other), lease["rating_id"], score=3).status_code == 404
    assert Rating.objects.get(pk=lease["rating_id"]).status == "leased"
    for path in ("", "quality/", "results/", "ratings/"):
        url = f"{API}/campaigns/{campaign.pk}/{path}"
        assert client_for(first).get(url).status_code == 404  # the owner's views
        assert client_for(other).get(url).status_code == 404
    assert client_for(other).post(f"{API}/campaigns/{campaign.pk}/next/").status_code == 404


def test_others_cannot_create_on_a_private_dataset_and_anonymous_nothing(
    campaign, other, make_rater, client_for
):
    for user in (other, make_rater()):
        assert _create(client_for(user)).status_code == 404
    anonymous = client_for(None)
    for response in (
        _create(anonymous),
        _join(anonymous, campaign),
        anonymous.post(f"{API}/campaigns/{campaign.pk}/next/"),
        anonymous.get(f"{API}/campaigns/{campaign.pk}/results/"),
    ):
        assert response.status_code in (401, 403)
    bad = client_for(other).post(f"{API}/campaigns/join/", {"token": "x"}, format="json")
    assert bad.status_code == 404
    assert Campaign.objects.count() == 1


def _rate_everything(client, campaign, score_for):
    _join(client, campaign)
    while "rating_id" in (lease := client.post(f"{API}/campaigns/{campaign.pk}/next/").json()):
        rating = Rating.objects.select_related("slot__system_a").get(pk=lease["rating_id"])
        _answer(client, rating.pk, score=score_for(rating))


def test_likert_results_rank_systems_with_intervals(dataset_systems, owner, make_rater, client_for):
    created = _create(client_for(owner), mode="likert", ratings_per_unit=2).json()
    campaign = Campaign.objects.get(pk=created["id"])
    for bias in (0, 1):
        _rate_everything(
            client_for(make_rater()),
            campaign,
            lambda r, bias=bias: (4 if r.slot.system_a.name == "mt" else 2) + bias,
        )
    rows = client_for(owner).get(f"{API}/campaigns/{campaign.pk}/results/").json()
    assert [(r["system"], r["items"], r["mean"]) for r in rows] == [("mt", 2, 4.5), ("rnn", 2, 2.5)]
    assert rows[0]["ci_low"] == pytest.approx(4.5) and rows[0]["versus"] is None


def test_pairwise_results_count_wins_from_a_side(campaign, owner, make_rater, client_for):
    # The rater always prefers mt, whichever side it was shown on.
    def prefer_mt(rating):
        mt_is_a = rating.slot.system_a.name == "mt"
        return 1 if mt_is_a == rating.a_on_left else 5

    _rate_everything(client_for(make_rater()), campaign, prefer_mt)
    rows = client_for(owner).get(f"{API}/campaigns/{campaign.pk}/results/").json()
    assert len(rows) == 1
    row = rows[0]
    expected = 2.0 if row["system"] == "mt" else -2.0
    assert row["mean"] == expected and row["items"] == 2
    assert (row["wins"], row["ties"], row["losses"]) == ((2, 0, 0) if expected > 0 else (0, 0, 2))


def test_the_export_names_systems_sides_and_preferences(campaign, owner, make_rater, client_for):
    _rate_everything(client_for(make_rater()), campaign, lambda rating: 2)
    response = client_for(owner).get(f"{API}/campaigns/{campaign.pk}/ratings/?format=csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 2
    for row in rows:
        assert {row["system_a"], row["system_b"]} == {"mt", "rnn"} and row["reference_id"] == ""
        a_on_left = row["a_on_left"].lower() == "true"
        assert float(row["preference"]) == (1.0 if a_on_left else -1.0)


def test_quality_control_can_pass_without_planted_controls(
    dataset_systems, owner, make_rater, client_for
):
    created = _create(
        client_for(owner), mode="likert", qc_min_seconds=0, control_rate=0, qc_min_controls=3
    ).json()
    campaign = Campaign.objects.get(pk=created["id"])
    rater = make_rater()
    scores = iter([5, 2, 4, 1])
    _rate_everything(client_for(rater), campaign, lambda rating: next(scores))
    from annotate.rating.services.qc import rater_qc_evaluate

    verdict = rater_qc_evaluate(campaign=campaign, rater=rater)
    assert verdict.qc_status == "passed", verdict.qc_reasons
    quality = client_for(owner).get(f"{API}/campaigns/{campaign.pk}/quality/").json()
    assert quality["raters"][0]["qc_status"] == "passed"


def _kinds_until_done(campaign, rater):
    from annotate.rating.services.assignment import rating_next
    from annotate.rating.services.campaigns import campaign_join
    from annotate.rating.services.ratings import rating_submit

    campaign_join(campaign=campaign, rater=rater)
    answered = []
    while (rating := rating_next(campaign=campaign, rater=rater)) is not None:
        answered.append(
            rating_submit(rating_id=rating.pk, rater=rater, score=1 + len(answered) % 5)
        )
    return answered


def test_likert_outputs_get_degraded_outputs_and_repeats(dataset_systems, owner, make_rater):
    from annotate.rating.selectors.results import rating_display
    from tests.annotate.output_campaign_kit import output_campaign

    dataset, systems = dataset_systems
    campaign = output_campaign(dataset, owner, systems, control_rate=0.5)
    answered = _kinds_until_done(campaign, make_rater())
    kinds = [rating.kind for rating in answered]
    assert kinds.count("normal") == 4 and {"bad_reference", "repeat"} <= set(kinds)
    bad = next(rating for rating in answered if rating.kind == "bad_reference")
    output = bad.slot.item.system_outputs.get(system=bad.slot.system_a).text
    assert bad.control_text and bad.control_text != output and bad.donor_item_id != bad.slot.item_id
    assert rating_display(rating=bad).texts == [bad.control_text]


def test_pairwise_outputs_get_repeats_on_the_other_sides_only(dataset_systems, owner, make_rater):
    from annotate.judgments.services.systems import eval_system_set_outputs
    from tests.annotate.output_campaign_kit import output_campaign

    dataset, systems = dataset_systems
    third = eval_system_set_outputs(
        dataset=dataset, name="echo", split="test", outputs=[("c1", "hi"), ("c2", "what")]
    )
    campaign = output_campaign(dataset, owner, [*systems, third], mode="pairwise", control_rate=0.5)
    answered = _kinds_until_done(campaign, make_rater())
    assert "bad_reference" not in {rating.kind for rating in answered}
    repeats = [rating for rating in answered if rating.kind == "repeat"]
    assert repeats
    for repeat in repeats:
        first = next(r for r in answered if r.kind == "normal" and r.slot_id == repeat.slot_id)
        assert repeat.a_on_left != first.a_on_left


def test_a_rater_consistent_across_sides_shows_no_repeat_difference(
    dataset_systems, owner, make_rater
):
    """QC compares a pair's answers from system A's side: a repeat shown the other way round
    and answered consistently differs by nothing."""
    from annotate.judgments.services.systems import eval_system_set_outputs
    from annotate.rating.services.assignment import rating_next
    from annotate.rating.services.campaigns import campaign_join
    from annotate.rating.services.qc import rater_qc_evaluate
    from annotate.rating.services.ratings import rating_submit
    from tests.annotate.output_campaign_kit import output_campaign

    dataset, systems = dataset_systems
    third = eval_system_set_outputs(
        dataset=dataset, name="echo", split="test", outputs=[("c1", "hi"), ("c2", "what")]
    )
    campaign = output_campaign(dataset, owner, [*systems, third], mode="pairwise", control_rate=0.5)
    rater = make_rater()
    campaign_join(campaign=campaign, rater=rater)
    while (rating := rating_next(campaign=campaign, rater=rater)) is not None:
        rating_submit(rating_id=rating.pk, rater=rater, score=1 if rating.a_on_left else 5)
    repeats = rater_qc_evaluate(campaign=campaign, rater=rater).qc_details["repeats"]
    assert repeats["n"] >= 1 and repeats["mean_difference"] == 0
