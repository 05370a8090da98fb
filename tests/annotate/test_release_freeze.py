"""Freezing copies the dataset and one campaign's weights; publishing writes the files."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from annotate.rating.models import Weight
from annotate.releases.models import ReleaseItem, ReleaseRating, ReleaseReference
from annotate.releases.services import release_delete_draft, release_publish, release_reveal_split
from tests.annotate.release_kit import _media, freeze, published, rated  # noqa: F401

pytestmark = pytest.mark.django_db


def test_freezing_copies_items_references_and_weights_in_order(
    owner, make_dataset, make_campaign, make_rater
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    release = freeze(dataset, campaign, owner, include_ratings=True)
    items = ReleaseItem.objects.filter(release=release).order_by("position")
    assert [(i.split, i.external_id) for i in items] == [
        ("dev", "c1"),
        ("test", "c2"),
        ("dev", "c3"),
    ]
    refs = ReleaseReference.objects.filter(release=release).order_by("item__position", "position")
    assert [r.weight for r in refs] == [0.5, -0.25, 1.0, 0.75, -0.5, 0.25]
    assert refs[0].n == 2 and refs[0].z_weight == 0.4 and refs[0].ci_low == 0.4
    assert ReleaseRating.objects.filter(release=release).count() == 12
    assert set(ReleaseRating.objects.values_list("rater", flat=True)) == {"r001", "r002"}
    assert release.status == "draft" and len(release.snapshot_checksum) == 64
    assert release.build_info["raters"]["joined"] == 2
    assert release.build_info["agreement"]["references_with_2_or_more_ratings"] == 6
    # Every reference rated 3 and 4: D_o = 1, D_e = 2·6·6 / (12·11), alpha = 1 − 11/6.
    assert release.build_info["agreement"]["krippendorff_alpha_interval"] == -0.8333


def test_the_snapshot_does_not_follow_later_changes(owner, make_dataset, make_campaign, make_rater):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    release = freeze(dataset, campaign, owner)
    Weight.objects.filter(campaign=campaign).update(weight=-1)
    assert ReleaseReference.objects.filter(release=release, weight=-1).count() == 0


def test_freezing_refuses_a_taken_version_a_bad_version_and_a_foreign_campaign(
    owner, make_dataset, make_campaign, make_rater
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    freeze(dataset, campaign, owner)
    with pytest.raises(ValidationError, match="already exists"):
        freeze(dataset, campaign, owner)
    with pytest.raises(ValidationError, match="semantic version"):
        freeze(dataset, campaign, owner, version="v2")
    other_dataset = make_dataset(slug="elsewhere")
    with pytest.raises(ValidationError, match="another dataset"):
        freeze(other_dataset, campaign, owner, version="2.0.0")


def test_publishing_writes_the_files_listed_with_checksums(
    owner, make_dataset, make_campaign, make_rater
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    release = published(dataset, campaign, owner, include_ratings=True)
    names = [f["name"] for f in release.manifest["files"]]
    assert sorted(names) == names and set(names) == {
        "README.md",
        "items.jsonl",
        "ratings.tsv",
        "refs.dev.jsonl",
        "references.parquet",
        "references.tsv",
        "release.json",
    }
    for entry in release.manifest["files"]:
        assert default_storage.exists(release.storage_prefix + entry["name"])
    assert release.storage_prefix.startswith(f"releases/{dataset.pk}/1.0.0/")
    tsv = default_storage.open(release.storage_prefix + "references.tsv").read().decode()
    assert tsv.splitlines()[0].startswith("id\tsplit\tcontext\tmessage\tresponse\tscore")
    readme = default_storage.open(release.storage_prefix + "README.md").read().decode()
    for part in ("Krippendorff", "w = 2 (m − 1) / (5 − 1) − 1", "@misc{chat", "CC-BY-4.0", "#"):
        assert part in readme


def test_a_published_release_cannot_be_changed_through_the_orm(
    owner, make_dataset, make_campaign, make_rater
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    release = published(dataset, campaign, owner)
    ref = ReleaseReference.objects.filter(release=release).first()
    ref.weight = -1.0
    with pytest.raises(IntegrityError), transaction.atomic():
        ref.save()
    release.citation = "rewritten"
    with pytest.raises(IntegrityError), transaction.atomic():
        release.save()
    with pytest.raises(ValidationError):
        release_delete_draft(release=release)
    with pytest.raises(ValidationError, match="already published"):
        release_publish(release=release)


def test_a_draft_can_be_deleted(owner, make_dataset, make_campaign, make_rater):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    release = freeze(dataset, campaign, owner)
    release_delete_draft(release=release)
    assert not ReleaseItem.objects.exists()


def test_publishing_refuses_a_public_split_that_delta_bleu_cannot_score(
    owner, make_dataset, make_campaign, make_rater
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    Weight.objects.filter(campaign=campaign).update(weight=-0.5)
    with pytest.raises(ValidationError, match="positive weight"):
        published(dataset, campaign, owner)


def test_unscorable_items_are_left_out_of_the_scoring_file_and_counted(
    owner, make_dataset, make_campaign, make_rater
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    Weight.objects.filter(campaign=campaign, reference__item__external_id="c3").update(weight=-0.5)
    prefix = published(dataset, campaign, owner).storage_prefix
    lines = default_storage.open(prefix + "refs.dev.jsonl").read().decode().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["c1"]
    readme = default_storage.open(prefix + "README.md").read().decode()
    assert "1 in dev" in readme


def test_revealing_the_hidden_split_adds_its_files_and_keeps_the_snapshot(
    owner, make_dataset, make_campaign, make_rater
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    release = published(dataset, campaign, owner)
    before = release.manifest_checksum
    release = release_reveal_split(release=release, split="test")
    assert release.public_splits == ["dev", "test"] and release.manifest_checksum != before
    assert "refs.test.jsonl" in [f["name"] for f in release.manifest["files"]]
    with pytest.raises(ValidationError, match="already public"):
        release_reveal_split(release=release, split="test")
