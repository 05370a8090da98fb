"""A study whose human scores are an output campaign's means (Likert or pairwise)."""

import numpy as np
import pytest

from annotate.datasets.models import Item, Split
from annotate.judgments.services.systems import eval_system_set_outputs
from annotate.rating.models import Subject
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_create, campaign_join
from annotate.rating.services.ratings import rating_submit
from scoring.study.models import CorrelationStudy
from scoring.study.services import study_create, study_data
from tests.runs_kit import execute
from tests.scoring.study_kit import STUDY_OPTIONS, WORDS, study_release_items

# Whole pipelines (a campaign rated, then a study of it): make test and CI, not test-fast.
pytestmark = [pytest.mark.django_db, pytest.mark.slow]

N = 12
DROPPED_WORDS = {"good": 0, "mid": 2, "bad": 4}
LIKERT = {"good": 5, "mid": 3, "bad": 1}


def likert_score(system: str, item_id: str) -> int:
    # Item parity moves the score by one so that human differences vary across units.
    return LIKERT[system] - (int(item_id[1:]) % 2 if system != "bad" else 0)


@pytest.fixture
def systems(owner, make_release):
    release = make_release(items=study_release_items(N), public_splits=("test",))
    split = Split.objects.create(dataset=release.dataset, name="test")
    Item.objects.bulk_create(
        Item(split=split, external_id=f"t{i}", message="m", position=i) for i in range(N)
    )
    made = []
    for name, drop in DROPPED_WORDS.items():
        outputs = [(f"t{i}", " ".join(WORDS[i % 3].split()[drop:]) or "x") for i in range(N)]
        made.append(
            eval_system_set_outputs(
                dataset=release.dataset, name=name, split="test", outputs=outputs
            )
        )
    return release, made


def rated_campaign(owner, rater, release, systems, mode):
    campaign = campaign_create(
        owner=owner,
        dataset=release.dataset,
        name=mode,
        subject=Subject.OUTPUTS,
        systems=systems,
        split=release.dataset.splits.get(name="test"),
        mode=mode,
        ratings_per_unit=1,
        control_rate=0,
    )
    campaign_join(campaign=campaign, rater=rater)
    better = list(DROPPED_WORDS)  # best first
    while (rating := rating_next(campaign=campaign, rater=rater)) is not None:
        slot, item_id = rating.slot, rating.slot.item.external_id
        if mode == "likert":
            score = likert_score(slot.system_a.name, item_id)
        else:  # 1: the left one is much better, 5: the right one
            left, right = (slot.system_a, slot.system_b)[:: 1 if rating.a_on_left else -1]
            score = 1 if better.index(left.name) < better.index(right.name) else 5
        rating_submit(rating_id=rating.pk, rater=rater, score=score)
    return campaign


def test_a_likert_campaigns_means_are_the_studys_human_differences(
    systems, owner, rater, client_for, django_capture_on_commit_callbacks
):
    release, made = systems
    campaign = rated_campaign(owner, rater, release, made, "likert")
    body = {
        "name": "From raters",
        "release": release.pk,
        "split": "test",
        "output_campaign": campaign.pk,
        "options": STUDY_OPTIONS,
    }
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(owner).post("/api/v1/studies/", body, format="json")
    assert response.status_code == 201, response.json()
    study = CorrelationStudy.objects.get(pk=response.json()["id"])
    assert study.output_campaign == campaign and study.judgment_set is None

    data = study_data(study)
    assert data.pairs == [("bad", "good"), ("bad", "mid"), ("good", "mid")]
    for a, b in data.pairs:
        expected = [likert_score(a, i) - likert_score(b, i) for i in data.item_ids]
        assert data.human[data.criteria[0]][(a, b)].tolist() == expected
    assert execute(study.run).state == "succeeded"
    study.refresh_from_db()
    assert study.result["n_units"] > 0 and len(study.result["table"]) == 9


def test_a_pairwise_campaigns_preferences_are_the_studys_human_differences(systems, owner, rater):
    release, made = systems
    campaign = rated_campaign(owner, rater, release, made, "pairwise")
    study = CorrelationStudy.objects.create(
        owner=owner,
        name="AB",
        dataset=release.dataset,
        release=release,
        split="test",
        output_campaign=campaign,
    )
    data = study_data(study)
    # Slots pair the systems in creation order (good, mid, bad): A is always the better one,
    # whichever side it was shown on, so every preference for A is +2.
    assert data.pairs == [("good", "bad"), ("good", "mid"), ("mid", "bad")]
    for pair in data.pairs:
        assert np.array_equal(data.human[data.criteria[0]][pair], np.full(N, 2.0))


def test_a_pairwise_campaign_study_has_no_segment_level_and_says_so(
    systems,
    owner,
    rater,
    client_for,
):
    release, made = systems
    campaign = rated_campaign(owner, rater, release, made, "pairwise")
    found = study_create(
        owner=owner,
        name="AB",
        release=release,
        split="test",
        output_campaign=campaign,
        options=STUDY_OPTIONS,
        send=False,
    )
    assert execute(found.run).state == "succeeded"
    found = CorrelationStudy.objects.get(pk=found.pk)
    assert found.result["segments"] == {} and found.result["systems"] == {}
    assert any("no segment level" in note for note in found.result["notes"])
    page = client_for(owner).get(f"/studies/{found.pk}/").content.decode()
    assert "Segments —" not in page and "no segment level" in page
    text = client_for(owner).get(f"/studies/{found.pk}/export.csv").content.decode()
    assert "segments" not in [line.split(",")[0] for line in text.splitlines()]
