"""Where a release's files live: a folder per set of files, written and checked before the row
points to it, by dataset id (a slug can change hands), old sets removed once unreferenced."""

import pytest
from django.core.files.storage import default_storage

from annotate.datasets.services.datasets import dataset_update
from annotate.releases.models import Release
from annotate.releases.services import release_publish
from annotate.releases.services.reveal import release_reveal
from tests.annotate.release_archive_kit import stored_files
from tests.annotate.release_kit import _media, archive_run, freeze, published, rated  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated_chat(make_dataset, make_campaign, make_rater):
    return rated(make_dataset, make_campaign, make_rater)


def names(release):
    return {e["name"] for e in release.manifest["files"]} | {"manifest.json"}


def folder(prefix):
    return set(default_storage.listdir(prefix)[1])


def test_publishing_writes_one_folder_named_by_dataset_id_and_manifest(rated_chat, owner):
    release = published(*rated_chat, owner)
    assert release.storage_prefix == (
        f"releases/{release.dataset_id}/1.0.0/{release.manifest_checksum[:16]}/"
    )
    assert folder(release.storage_prefix) == names(release)
    assert [p for p in stored_files() if "/releases/" in p] == [
        f"media/{release.storage_prefix}{n}" for n in sorted(names(release))
    ]


def test_a_publication_that_fails_after_writing_leaves_no_file(rated_chat, owner, monkeypatch):
    draft = freeze(*rated_chat, owner)
    before = stored_files()
    save = Release.save

    def failing(self, *args, **kwargs):
        if self.status == "published":
            raise RuntimeError("the database went away")
        return save(self, *args, **kwargs)

    monkeypatch.setattr(Release, "save", failing)
    with pytest.raises(RuntimeError):
        release_publish(release=draft)
    draft.refresh_from_db()
    assert draft.status == "draft" and stored_files() == before


def test_a_reveal_switches_folders_and_drops_the_old_one_once_committed(
    rated_chat, owner, django_capture_on_commit_callbacks
):
    release = published(*rated_chat, owner)
    old_prefix, old_names = release.storage_prefix, names(release)
    with django_capture_on_commit_callbacks() as callbacks:
        release = release_reveal(release=release, split="test", by=owner, confirm="chat")
        assert folder(old_prefix) == old_names  # readers of the old set are not cut off yet
    assert release.storage_prefix != old_prefix
    assert "refs.test.jsonl" in folder(release.storage_prefix)
    for callback in callbacks:
        callback()
    assert not default_storage.exists(old_prefix + "release.json")
    assert folder(release.storage_prefix) == names(release)


def test_a_renamed_slug_taken_by_another_dataset_shares_no_folder(
    rated_chat, owner, make_dataset, make_campaign, make_rater
):
    first = published(*rated_chat, owner)
    meta = default_storage.open(first.storage_prefix + "release.json").read()
    dataset_update(dataset=first.dataset, slug="renamed")
    second = published(*rated(make_dataset, make_campaign, make_rater), owner)  # slug "chat"
    assert second.dataset.slug == "chat" and second.dataset_id != first.dataset_id
    first.refresh_from_db()
    assert first.storage_prefix != second.storage_prefix
    assert default_storage.open(first.storage_prefix + "release.json").read() == meta


def test_an_archive_built_while_a_reveal_changed_the_files_is_dropped(
    rated_chat, owner, monkeypatch
):
    release = published(*rated_chat, owner)
    from annotate.releases.services import archive

    build = archive.archive_bytes

    def and_meanwhile(**kwargs):
        data = build(**kwargs)
        Release.objects.filter(pk=release.pk).update(manifest_checksum="f" * 64)
        return data

    monkeypatch.setattr(archive, "archive_bytes", and_meanwhile)
    run = archive_run(release, owner)
    assert run.state == "succeeded" and run.result["archive"] == ""
    assert not any(p.endswith(".zip") for p in stored_files())
    assert Release.objects.get(pk=release.pk).archive_name == ""
