"""freeze_release and import_release from the command line."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotate.releases.models import Release
from tests.annotate.release_kit import _media, archive_run, rated  # noqa: F401

pytestmark = pytest.mark.django_db


def test_freeze_publish_then_import_elsewhere(
    owner, other, make_dataset, make_campaign, make_rater, tmp_path
):
    from django.core.files.storage import default_storage

    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    call_command("freeze_release", "chat", "1.0.0", "--campaign", str(campaign.pk), "--publish")
    release = Release.objects.get(dataset=dataset, version="1.0.0")
    assert release.status == "published"
    assert archive_run(release, owner).state == "succeeded"
    release.refresh_from_db()
    archive = tmp_path / "chat.zip"
    archive.write_bytes(default_storage.open(release.archive_name).read())
    call_command("import_release", str(archive), "--owner", "other", "--slug", "copy")
    copy = Release.objects.get(dataset__slug="copy")
    assert copy.manifest_checksum == release.manifest_checksum and copy.dataset.owner == other
    with pytest.raises(CommandError, match="exists already"):
        call_command("import_release", str(archive), "--owner", "other", "--slug", "copy")


def test_a_rater_cannot_import_a_release_by_command(rater, tmp_path):
    archive = tmp_path / "release.zip"
    archive.write_bytes(b"refused before it is read")
    with pytest.raises(CommandError, match=r"^Only researchers can import releases\.$"):
        call_command("import_release", str(archive), "--owner", "rater", "--slug", "mine")
    assert not Release.objects.exists()


def test_import_release_of_a_directory_is_one_line(owner, tmp_path):
    with pytest.raises(CommandError, match=r"is a directory, not a file\.$"):
        call_command("import_release", str(tmp_path), "--owner", "owner")


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("nope.bib", r"^--citation-file: .*nope.bib: no such file\.$"),
        (".", r"^--citation-file: .* is a directory, not a file\.$"),
        ("garbage.bin", r"^--citation-file: .*garbage.bin is not UTF-8 text \(byte 16 is not\)"),
    ],
)
def test_freeze_release_refuses_a_citation_file_it_cannot_read_and_freezes_nothing(
    owner, make_dataset, make_campaign, make_rater, tmp_path, name, says
):
    _, campaign = rated(make_dataset, make_campaign, make_rater)
    (tmp_path / "garbage.bin").write_bytes(b"@misc{x, note={\xff}}")
    path = tmp_path / name
    with pytest.raises(CommandError, match=says):
        call_command(
            "freeze_release", "chat", "1.0.0", "--campaign", str(campaign.pk),
            "--citation-file", str(path),
        )  # fmt: skip
    assert not Release.objects.exists()


def test_freeze_release_reads_a_utf8_citation_file(
    owner, make_dataset, make_campaign, make_rater, tmp_path
):
    _, campaign = rated(make_dataset, make_campaign, make_rater)
    path = tmp_path / "ref.bib"
    path.write_text("@misc{x, author={Zoë}}", encoding="utf-8")
    call_command(
        "freeze_release", "chat", "1.0.0", "--campaign", str(campaign.pk),
        "--citation-file", str(path),
    )  # fmt: skip
    assert Release.objects.get().citation == "@misc{x, author={Zoë}}"


def test_freeze_release_names_a_missing_campaign(owner, make_dataset):
    make_dataset()
    with pytest.raises(CommandError, match="No dataset"):
        call_command("freeze_release", "chat", "1.0.0", "--campaign", "999")


def test_a_dataset_with_releases_cannot_be_deleted(
    owner, make_dataset, make_campaign, make_rater, client_for
):
    from django.urls import reverse

    from tests.annotate.release_kit import freeze

    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    freeze(dataset, campaign, owner)
    response = client_for(owner).delete(reverse("api-dataset", kwargs={"slug": "chat"}))
    assert response.status_code == 409
