"""Deleting a dataset: what goes is listed first (page and API), what keeps it is named."""

import pytest

from annotate.datasets.models import Dataset, Item, Reference
from annotate.judgments.models import EvalSystem, Judgment, JudgmentSet
from annotate.judgments.services.systems import eval_system_set_outputs
from annotate.rating.models import Campaign, Rating, Subject
from annotate.rating.services.campaigns import campaign_create
from annotate.releases.services import release_delete_draft
from tests.annotate.release_kit import _media, freeze, rated  # noqa: F401
from tests.conftest import owner_only_access

pytestmark = pytest.mark.django_db
API = "/api/v1/datasets/chat/"
PAGE = "/datasets/chat/delete/"


@pytest.fixture
def world(owner, make_dataset, make_campaign, make_rater):
    """chat: 3 items, 6 references, a reference campaign rated twice over, an evaluated system
    with 2 outputs, an output campaign on it, 3 imported judgments."""
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    system = eval_system_set_outputs(
        dataset=dataset, name="s1", split="dev", outputs=[("c1", "hello"), ("c3", "pizza")]
    )
    campaign_create(
        owner=owner,
        dataset=dataset,
        name="outputs",
        subject=Subject.OUTPUTS,
        systems=[system],
        split=dataset.splits.get(name="dev"),
    )
    judgments = JudgmentSet.objects.create(dataset=dataset, owner=owner, name="imported")
    for judge in "abc":
        Judgment.objects.create(
            judgment_set=judgments,
            judge=judge,
            external_id="c1",
            system=system,
            criterion="relevance",
            score=3,
        )
    return dataset, campaign


EXPECTED = {
    "datasets.dataset": 1, "datasets.split": 2, "datasets.item": 3, "datasets.reference": 6,
    "rating.campaign": 2, "rating.slot": 8, "rating.rating": 12, "rating.weight": 6,
    "rating.campaignrater": 2, "judgments.evalsystem": 1, "judgments.systemoutput": 2,
    "judgments.judgmentset": 1, "judgments.judgment": 3,
}  # fmt: skip


def counts(body) -> dict[str, int]:
    return {row["model"]: row["count"] for row in body["deletes"] if row["count"]}


def test_the_preview_counts_everything_that_hangs_on_the_dataset(world, owner, client_for):
    response = client_for(owner).get(f"{API}deletion/")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["dataset"] == "chat" and body["can_delete"] and body["blockers"] == []
    assert counts(body) == EXPECTED
    assert body["deletes"][0] == {"model": "datasets.dataset", "label": "datasets", "count": 1}
    labels = {row["model"]: row["label"] for row in body["deletes"]}
    assert labels["rating.rating"] == "ratings" and labels["judgments.judgment"] == "judgments"
    # Nothing was deleted by looking.
    assert Rating.objects.count() == 12 and Item.objects.count() == 3


def test_deleting_removes_all_of_it(world, owner, client_for):
    assert client_for(owner).delete(API).status_code == 204
    assert not Dataset.objects.exists()
    for model in (Item, Reference, Campaign, Rating, EvalSystem, JudgmentSet, Judgment):
        assert not model.objects.exists(), model


def test_a_release_keeps_the_dataset_and_is_named(world, owner, client_for):
    dataset, campaign = world
    release = freeze(dataset, campaign, owner)
    preview = client_for(owner).get(f"{API}deletion/").json()
    assert not preview["can_delete"]
    [blocker] = preview["blockers"]
    assert blocker["model"] == "releases.release" and blocker["count"] == 1
    assert blocker["names"] == ["chat 1.0.0"] and "citable" in blocker["reason"]
    response = client_for(owner).delete(API)
    assert response.status_code == 409
    assert (
        "cannot be deleted: 1 release (chat 1.0.0): a release is citable"
        in (response.json()["detail"])
    )
    assert Dataset.objects.filter(slug="chat").exists() and Rating.objects.count() == 12
    # A draft can go first; then the dataset can.
    release_delete_draft(release=release)
    assert client_for(owner).delete(API).status_code == 204


# Anonymous requests are refused before any lookup: private and public datasets answer alike.
@pytest.mark.parametrize("who, visibility, code", owner_only_access(anonymous=403))
def test_only_the_owner_sees_the_preview(
    make_dataset, client_for, user_named, who, visibility, code
):
    make_dataset(visibility=visibility)
    user = user_named(who)
    assert client_for(user).get(f"{API}deletion/").status_code == code
    assert client_for(user).get(PAGE).status_code in (
        (code,) if who != "anonymous" else (302,)  # a page sends anonymous to the login
    )


@pytest.mark.parametrize("who", ["other", "rater", "anonymous"])
def test_others_cannot_delete(make_dataset, client_for, request, who):
    make_dataset(visibility="public")
    user = None if who == "anonymous" else request.getfixturevalue(who)
    assert client_for(user).delete(API).status_code == 403
    assert client_for(user).post(PAGE, {"confirm": "chat"}).status_code in (403, 302)
    assert Dataset.objects.filter(slug="chat").exists()


def test_the_page_lists_what_goes_and_asks_for_the_slug(world, owner, client_for):
    client = client_for(owner)
    page = client.get(PAGE)
    assert page.status_code == 200
    html = page.content.decode()
    assert '<tr data-model="rating.rating"><td>ratings</td><td>12</td></tr>' in html
    assert '<tr data-model="judgments.judgment"><td>judgments</td><td>3</td></tr>' in html
    wrong = client.post(PAGE, {"confirm": "nope"})
    assert wrong.status_code == 400 and "Type chat exactly" in wrong.content.decode()
    assert Dataset.objects.filter(slug="chat").exists()
    done = client.post(PAGE, {"confirm": "chat"})
    assert done.status_code == 302 and done["Location"] == "/"
    assert not Dataset.objects.exists() and not Rating.objects.exists()


def test_the_page_names_the_release_that_keeps_it_and_offers_no_button(world, owner, client_for):
    dataset, campaign = world
    freeze(dataset, campaign, owner)
    page = client_for(owner).get(PAGE).content.decode()
    assert "cannot be deleted" in page and "chat 1.0.0" in page and 'name="confirm"' not in page
    refused = client_for(owner).post(PAGE, {"confirm": "chat"})
    assert refused.status_code == 409 and "chat 1.0.0" in refused.content.decode()
    assert Dataset.objects.filter(slug="chat").exists()
