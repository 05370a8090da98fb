"""Hidden test splits: one policy for pages, API and exports; reveals are confirmed and logged."""

import pytest
from django.core.exceptions import ValidationError

from annotate.releases.models import SplitReveal
from annotate.releases.services.reveal import dataset_reveal_split, release_reveal
from tests.annotate.release_kit import published, rated

pytestmark = pytest.mark.django_db

HIDDEN = "try the one with the blue door"  # a reference of c2, small.jsonl's test item
VISIBLE = "that last goal was unbelievable"  # a reference of c1 (dev)
ROUTES = [
    "/datasets/chat/",
    "/datasets/chat/?split=test",
    "/datasets/chat/export.jsonl",
    "/api/v1/datasets/chat/items/",
    "/api/v1/datasets/chat/items/?split=test",
    "/api/v1/datasets/chat/export/",
]


def _text(response) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("who", ["anonymous", "other", "rater"])
def test_a_public_datasets_test_references_are_hidden_from_others(
    make_dataset, client_for, user_named, route, who
):
    make_dataset(visibility="public")
    user = user_named(who)
    response = client_for(user).get(route)
    text = _text(response)
    assert response.status_code == 200
    assert HIDDEN not in text
    if "split=test" not in route:
        assert VISIBLE in text


@pytest.mark.parametrize("route", ROUTES)
def test_the_owner_sees_the_hidden_references(make_dataset, client_for, owner, route):
    make_dataset(visibility="public")
    assert HIDDEN in _text(client_for(owner).get(route))


def test_the_api_says_which_items_have_their_references_hidden(make_dataset, client_for, other):
    make_dataset(visibility="public")
    rows = client_for(other).get("/api/v1/datasets/chat/items/").json()["results"]
    assert {(r["id"], r["references_hidden"], len(r["references"]) > 0) for r in rows} == {
        ("c1", False, True),
        ("c2", True, False),
        ("c3", False, True),
    }


def test_the_test_items_inputs_stay_public(make_dataset, client_for):
    make_dataset(visibility="public")
    text = _text(client_for(None).get("/datasets/chat/export.jsonl"))
    assert "anyone know a good café near the station?" in text


def test_a_reveal_needs_the_slug_typed_out_and_is_logged(make_dataset, owner, client_for, other):
    dataset = make_dataset(visibility="public")
    with pytest.raises(ValidationError) as refused:
        dataset_reveal_split(dataset=dataset, split="test", by=owner, confirm="yes")
    assert "confirm" in refused.value.message_dict
    assert HIDDEN not in _text(client_for(other).get("/datasets/chat/export.jsonl"))
    dataset_reveal_split(dataset=dataset, split="test", by=owner, confirm="chat")
    assert HIDDEN in _text(client_for(other).get("/datasets/chat/export.jsonl"))
    reveal = SplitReveal.objects.get()
    assert (reveal.dataset, reveal.split, reveal.revealed_by, reveal.release) == (
        dataset,
        "test",
        owner,
        None,
    )


def test_a_split_that_is_not_hidden_cannot_be_revealed(make_dataset, owner):
    dataset = make_dataset(visibility="public")
    with pytest.raises(ValidationError, match="not hidden"):
        dataset_reveal_split(dataset=dataset, split="dev", by=owner, confirm="chat")


@pytest.fixture
def release(make_dataset, make_campaign, make_rater, owner, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    return published(dataset, campaign, owner, public_splits=["dev"])


def test_the_dataset_keeps_a_split_hidden_while_a_release_does(release, owner):
    with pytest.raises(ValidationError, match="Release 1.0.0 keeps the test split hidden"):
        dataset_reveal_split(dataset=release.dataset, split="test", by=owner, confirm="chat")
    release_reveal(release=release, split="test", by=owner, confirm="chat")
    dataset_reveal_split(dataset=release.dataset, split="test", by=owner, confirm="chat")
    assert [r.release_id for r in SplitReveal.objects.order_by("revealed_at", "pk")] == [
        release.pk,
        None,
    ]


def test_a_reveal_is_held_to_the_rule_of_publishing(
    make_dataset, make_campaign, make_rater, owner, settings, tmp_path
):
    # A split ΔBLEU cannot score is refused at publication; a reveal let it out afterwards.
    from annotate.rating.models import Weight

    settings.MEDIA_ROOT = tmp_path / "media"
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    tests = Weight.objects.filter(campaign=campaign, reference__item__split__name="test")
    tests.update(weight=-0.5, z_weight=-0.5)
    release = published(dataset, campaign, owner, public_splits=["dev"])
    with pytest.raises(ValidationError, match="No item of the test split has a reference"):
        release_reveal(release=release, split="test", by=owner, confirm="chat")
    release.refresh_from_db()
    assert release.public_splits == ["dev"] and not SplitReveal.objects.exists()


def test_a_split_that_is_not_there_cannot_be_revealed(make_dataset, owner):
    from annotate.datasets.models import Split

    dataset = make_dataset(visibility="public")
    Split.objects.filter(dataset=dataset, name="test").delete()
    with pytest.raises(ValidationError, match="The dataset has no test split"):
        dataset_reveal_split(dataset=dataset, split="test", by=owner, confirm="chat")
    assert not SplitReveal.objects.exists()


def test_the_reveal_pages_and_endpoints_are_the_owners(release, client_for, owner, other):
    api = "/api/v1/datasets/chat/releases/1.0.0/reveal/"
    assert client_for(other).post(api, {"split": "test", "confirm": "chat"}).status_code == 403
    response = client_for(owner).post(api, {"split": "test"}, format="json")
    assert response.status_code == 400 and "confirm" in response.json()
    response = client_for(owner).post(api, {"split": "test", "confirm": "chat"}, format="json")
    assert response.status_code == 200 and "test" in response.json()["public_splits"]
    page = "/datasets/chat/reveal/"
    assert client_for(other).post(page, {"split": "test", "confirm": "chat"}).status_code == 403
    assert client_for(owner).post(page, {"split": "test", "confirm": "chat"}).status_code == 302
    api_dataset = client_for(owner).get("/api/v1/datasets/chat/").json()
    assert api_dataset["revealed_splits"] == ["test"]
    assert SplitReveal.objects.count() == 2


def test_a_name_typed_wrong_keeps_the_owner_on_the_reveal_page(make_dataset, client_for, owner):
    make_dataset(visibility="public")
    page = "/datasets/chat/reveal/"
    response = client_for(owner).post(page, {"split": "test", "confirm": "chta"})
    assert response.status_code == 400
    assert "slug (chat) to confirm" in _text(response) and 'value="test"' in _text(response)
    assert not SplitReveal.objects.exists()
    response = client_for(owner).post(page, {"split": "test", "confirm": "chat"})
    assert response.status_code == 302 and SplitReveal.objects.count() == 1
    # Revealed already: the refusal on the page, not a second reveal.
    response = client_for(owner).post(page, {"split": "test", "confirm": "chat"})
    assert response.status_code == 400 and SplitReveal.objects.count() == 1


def test_the_owner_is_offered_the_reveal_with_its_confirmation(make_dataset, client_for, owner):
    make_dataset(visibility="public")
    page = _text(client_for(owner).get("/datasets/chat/"))
    assert 'action="/datasets/chat/reveal/"' in page and 'name="confirm"' in page
