"""References the campaign never rated: a release refuses them until the owner chooses (wait,
exclude, weight 0), says which in its datasheet; publishing and revealing are confirmed by name."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from annotate.datasets.models import Reference
from annotate.releases.models import Release, ReleaseReference
from annotate.releases.selectors.content import release_content
from annotate.releases.services import release_publish
from annotate.releases.services.datasheet import datasheet_markdown
from annotate.releases.services.publish import release_meta
from tests.annotate.release_kit import _media, freeze, rated  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def late(owner, make_dataset, make_campaign, make_rater):
    """A rated dataset, then two candidates added after its campaign rated everything."""
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    first = Reference.objects.filter(item__split__dataset=dataset, item__external_id="c1").first()
    for position in (7, 8):
        Reference.objects.create(item=first.item, text=f"mined late {position}", position=position)
    return dataset, campaign


def _datasheet(release: Release) -> str:
    content = release_content(release=release, public_only=True)
    return datasheet_markdown(meta=release_meta(release=release), content=content)


def test_waiting_is_the_default_freezing_is_refused_naming_the_choice(owner, late):
    dataset, campaign = late
    with pytest.raises(ValidationError) as refused:
        freeze(dataset, campaign, owner)
    assert "2 references" in refused.value.message_dict["unrated"][0]
    assert not Release.objects.filter(dataset=dataset).exists()


def test_excluding_leaves_them_out_and_the_datasheet_says_how_many(owner, late):
    dataset, campaign = late
    release = freeze(dataset, campaign, owner, unrated="exclude")
    texts = set(ReleaseReference.objects.filter(release=release).values_list("text", flat=True))
    assert len(texts) == 6 and not any(t.startswith("mined late") for t in texts)
    assert release.build_info["unrated"] == {"choice": "exclude", "references": 2}
    assert "2 excluded from this release" in _datasheet(release)
    # A draft's datasheet once read "Published: None".
    assert "Published: not yet (a draft)" in _datasheet(release)
    assert "None" not in _datasheet(release)


def test_weight_zero_keeps_them_with_weight_0_and_the_datasheet_says_so(owner, late):
    dataset, campaign = late
    release = freeze(dataset, campaign, owner, unrated="zero")
    late_refs = ReleaseReference.objects.filter(release=release, text__startswith="mined late")
    assert [(r.weight, r.z_weight, r.n) for r in late_refs] == [(0.0, 0.0, 0), (0.0, 0.0, 0)]
    assert "2 published with weight 0" in _datasheet(release)
    published = release_publish(release=release)
    assert published.is_published and published.build_info["unrated"]["choice"] == "zero"


def test_a_fully_rated_release_says_none_were_unrated(
    owner, make_dataset, make_campaign, make_rater
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    release = freeze(dataset, campaign, owner)
    assert release.build_info["unrated"] == {"choice": "none", "references": 0}
    assert "every reference had at least one counted rating" in _datasheet(release)


def test_an_older_draft_with_unweighted_references_is_refused_at_publication(owner, late):
    dataset, campaign = late
    release = freeze(dataset, campaign, owner, unrated="zero")
    # A draft frozen before the choice existed: unweighted references, nothing recorded.
    ReleaseReference.objects.filter(release=release, text__startswith="mined late").update(
        weight=None, z_weight=None
    )
    release.build_info.pop("unrated")
    Release.objects.filter(pk=release.pk).update(build_info=release.build_info)
    with pytest.raises(ValidationError, match="unrated=exclude"):
        release_publish(release=release)
    published = release_publish(release=release, unrated="exclude")
    assert published.is_published and published.build_info["unrated"]["references"] == 2


@pytest.mark.parametrize("choice, kept", [("exclude", 6), ("zero", 8)])
def test_the_freeze_api_takes_the_choice(owner, late, client_for, choice, kept):
    dataset, campaign = late
    url = reverse("api-releases", kwargs={"slug": dataset.slug})
    body = {"version": "2.0.0", "campaign": campaign.pk}
    refused = client_for(owner).post(url, body, format="json")
    assert refused.status_code == 400 and "unrated" in refused.json()
    bad = client_for(owner).post(url, {**body, "unrated": "maybe"}, format="json")
    assert bad.status_code == 400 and "unrated" in bad.json()
    answer = client_for(owner).post(url, {**body, "unrated": choice}, format="json")
    assert answer.status_code == 201
    assert answer.json()["unrated"] == {"choice": choice, "references": 2}
    release = Release.objects.get(dataset=dataset, version="2.0.0")
    assert ReleaseReference.objects.filter(release=release).count() == kept


def test_the_freeze_form_offers_the_choice(owner, late, client_for):
    dataset, campaign = late
    url = reverse("release-new", kwargs={"slug": dataset.slug})
    form = {
        "version": "2.0.0",
        "campaign": campaign.pk,
        "weight_variant": "raw",
        "public_splits": ["dev"],
        "license": "CC-BY-4.0",
    }
    refused = client_for(owner).post(url, form)
    assert refused.status_code == 200 and b"2 references" in refused.content
    assert b'name="unrated"' in refused.content
    assert client_for(owner).post(url, {**form, "unrated": "exclude"}).status_code == 302


def test_the_publish_api_requires_the_typed_name(
    owner, make_dataset, make_campaign, make_rater, client_for
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    freeze(dataset, campaign, owner)
    url = reverse("api-release-publish", kwargs={"slug": dataset.slug, "version": "1.0.0"})
    client = client_for(owner)
    for body in ({}, {"confirm": "1.0.0"}, {"confirm": ["chat@1.0.0"]}):
        answer = client.post(url, body, format="json")
        assert answer.status_code == 400 and "confirm" in answer.json()
    assert Release.objects.get(dataset=dataset).status == "draft"
    answer = client.post(url, {"confirm": "chat@1.0.0"}, format="json")
    assert answer.status_code == 200 and answer.json()["status"] == "published"


def test_the_publish_page_lists_what_happens(
    owner, make_dataset, make_campaign, make_rater, client_for
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    freeze(dataset, campaign, owner, public_splits=["dev"])
    url = reverse("release-publish", kwargs={"slug": dataset.slug, "version": "1.0.0"})
    html = client_for(owner).get(url).content.decode()
    assert "This cannot be undone" in html and "<code>chat@1.0.0</code>" in html
    assert "keep the references of test hidden" in html
    assert 'name="unrated"' not in html  # nothing to decide


def test_the_reveal_page_confirms_with_the_slug(
    owner, make_dataset, make_campaign, make_rater, client_for
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    freeze(dataset, campaign, owner, public_splits=["dev"])
    release_publish(release=Release.objects.get(dataset=dataset))
    url = reverse("release-reveal", kwargs={"slug": dataset.slug, "version": "1.0.0"})
    client = client_for(owner)
    page = client.get(url + "?split=test").content.decode()
    assert "blind tests" in page and 'value="test"' in page
    wrong = client.post(url, {"split": "test", "confirm": "nope"})
    assert wrong.status_code == 400 and b"Type the dataset" in wrong.content
    assert Release.objects.get(dataset=dataset).public_splits == ["dev"]
    assert client.post(url, {"split": "test", "confirm": "chat"}).status_code == 302
    assert Release.objects.get(dataset=dataset).public_splits == ["dev", "test"]
    # A split that is not hidden has no confirmation page: back to the release.
    assert client.get(url + "?split=dev").status_code == 302
    assert client.get(url + "?split=<b>").status_code == 302


@pytest.mark.parametrize("who, status", [("other", 404), ("anonymous", 302)])
def test_confirmation_pages_are_the_owners(
    owner, make_dataset, make_campaign, make_rater, client_for, user_named, who, status
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    freeze(dataset, campaign, owner)
    url = reverse("release-publish", kwargs={"slug": dataset.slug, "version": "1.0.0"})
    assert client_for(user_named(who)).get(url).status_code == status
