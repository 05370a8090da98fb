"""Importing a hostile release archive: refused with a 4xx naming the problem, and nothing
written — no file inside or outside storage, no row, another owner's release untouched."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotate.releases.models import Release
from annotate.releases.services.importing import release_import_archive
from tests.annotate.release_archive_kit import (
    archive_of,
    database_counts,
    edited_json,
    repacked,
    stored_files,
    unpacked,
    victim_release,
    with_version,
)
from tests.annotate.release_kit import shared_world
from tests.bombs import GIB, zip_bomb, zip_many_entries, zip_of
from tests.storage_kit import DISK_FULL, disk_full_at

pytestmark = pytest.mark.django_db


# The victim's published release and archive.
shared, victim = shared_world(victim_release)


URL = reverse("api-release-import")


@pytest.fixture
def untouched(victim):
    """Asserts, after the test, that no stored file and no row changed."""
    before, counts = stored_files(), database_counts()
    release_json = default_storage.open(victim.storage_prefix + "release.json").read()
    yield
    assert stored_files() == before and database_counts() == counts
    assert default_storage.open(victim.storage_prefix + "release.json").read() == release_json


def post(client, data: bytes, slug: str = "copy"):
    upload = ContentFile(data, name="release.zip")
    return client.post(URL, {"archive": upload, "slug": slug}, format="multipart")


def test_a_version_that_climbs_into_another_release_is_refused(victim, other, untouched):
    hostile = with_version(archive_of(victim), "../pub/1.0.0")
    with pytest.raises(ValidationError) as caught:
        release_import_archive(source=hostile, owner=other, slug="mine")
    assert "semantic version" in caught.value.message_dict["version"][0]


def test_the_api_answers_400_naming_the_version(victim, other, client_for, untouched):
    response = post(client_for(other), with_version(archive_of(victim), "../pub/1.0.0"))
    assert response.status_code == 400 and "semantic version" in response.json()["version"][0]


def test_another_owners_slug_is_refused(victim, other, untouched):
    with pytest.raises(ValidationError, match="exists already"):
        release_import_archive(source=archive_of(victim), owner=other, slug="pub")


def test_the_importers_own_slug_is_refused_too(victim, other, make_dataset):
    make_dataset(slug="chat", user=other, data=None)
    before, counts = stored_files(), database_counts()
    with pytest.raises(ValidationError, match="exists already"):
        release_import_archive(source=archive_of(victim), owner=other, slug="chat")
    assert stored_files() == before and database_counts() == counts


def test_the_original_slug_is_refused_when_it_is_taken(victim, other, untouched):
    with pytest.raises(ValidationError, match="A dataset pub exists already"):
        release_import_archive(source=archive_of(victim), owner=other)


def test_a_slug_in_build_info_that_is_a_path_is_refused(victim, other, untouched):
    folder, files = unpacked(archive_of(victim))
    meta = json.loads(files["release.json"])
    meta["build_info"]["dataset"]["slug"] = "../../../evil"
    files["release.json"] = edited_json(files["release.json"], build_info=meta["build_info"])
    with pytest.raises(ValidationError, match="not a slug"):
        release_import_archive(source=repacked(folder, files), owner=other, slug="fine")


def entries(victim, change):
    folder, files = unpacked(archive_of(victim))
    return zip_of({f"{folder}/{n}": d for n, d in files.items()} | change)


HOSTILE_ENTRIES = {
    "parent": lambda v: entries(v, {"../release.json": b"{}"}),
    "deep parent": lambda v: entries(v, {"pub-1.0.0/../../x/release.json": b"{}"}),
    "absolute": lambda v: entries(v, {"/srv/release.json": b"{}"}),
    "drive": lambda v: entries(v, {"C:/release.json": b"{}"}),
    "backslash": lambda v: entries(v, {"pub-1.0.0\\..\\release.json": b"{}"}),
    "unexpected file": lambda v: entries(v, {"pub-1.0.0/evil.sh": b"rm -rf /"}),
    "nested folder": lambda v: entries(v, {"pub-1.0.0/sub/README.md": b"#"}),
    "second folder": lambda v: entries(v, {"other-1.0.0/README.md": b"#"}),
}


@pytest.mark.parametrize("make", HOSTILE_ENTRIES.values(), ids=HOSTILE_ENTRIES.keys())
def test_entries_outside_the_release_folder_are_refused(victim, other, client_for, make, untouched):
    response = post(client_for(other), make(victim))
    assert response.status_code == 400, response.content


def test_symlink_entries_are_refused(victim, other, client_for, untouched):
    folder, files = unpacked(archive_of(victim))
    del files["README.md"]
    data = zip_of(
        {f"{folder}/{n}": d for n, d in files.items()},
        symlinks={f"{folder}/README.md": "/etc/passwd"},
    )
    response = post(client_for(other), data)
    assert response.status_code == 400 and "symlink" in response.json()[0]


def garbled(victim, name, data, *, fix_manifest=True):
    folder, files = unpacked(archive_of(victim))
    files[name] = data
    return repacked(folder, files, fix_manifest=fix_manifest)


ITEM = json.dumps({"id": "x", "split": "dev", "context": [], "message": "m"})


def item_with_ref(victim, **changes):
    """The archive with its first public reference changed."""
    _, files = unpacked(archive_of(victim))
    items = [json.loads(line) for line in files["items.jsonl"].decode().splitlines()]
    public = next(item for item in items if item["refs"])
    public["refs"][0] |= changes
    lines = "".join(json.dumps(item) + "\n" for item in items)
    return garbled(victim, "items.jsonl", lines.encode())


def release_json_with(victim, **changes):
    _, files = unpacked(archive_of(victim))
    meta = json.loads(files["release.json"]) | changes
    return garbled(victim, "release.json", json.dumps(meta).encode())


GARBLED = {
    "truncated": lambda v: archive_of(v)[: len(archive_of(v)) // 2],
    "cut short at the end": lambda v: archive_of(v)[:-10],
    "not a zip": lambda v: b"hello, I am not a zip file at all" * 10,
    "empty": lambda v: b"",
    "release.json not JSON": lambda v: garbled(v, "release.json", b"{not json"),
    "release.json a list": lambda v: garbled(v, "release.json", b"[]"),
    "release.json field missing": lambda v: garbled(v, "release.json", b'{"format": 1}'),
    "manifest not JSON": lambda v: garbled(v, "manifest.json", b"\xff\xfe", fix_manifest=False),
    "manifest a string": lambda v: garbled(v, "manifest.json", b'"x"', fix_manifest=False),
    "items not UTF-8": lambda v: garbled(v, "items.jsonl", b"\xff\xfe\n"),
    "item of wrong types": lambda v: garbled(v, "items.jsonl", b'{"id": 1, "split": []}\n'),
    "item with NaN": lambda v: garbled(
        v, "items.jsonl", (ITEM[:-1] + ', "refs": [{"text": "t", "weight": NaN}]}\n').encode()
    ),
    "item repeated": lambda v: garbled(v, "items.jsonl", f"{ITEM}\n{ITEM}\n".encode()),
    "ratings short": lambda v: garbled(v, "ratings.tsv", b"header\nd1\tdev\n"),
    "ratings of nothing": lambda v: garbled(v, "ratings.tsv", b"h\nzz\tdev\t0\tr001\t3\n"),
    "checksum wrong": lambda v: garbled(v, "README.md", b"# edited", fix_manifest=False),
}


@pytest.mark.parametrize("make", GARBLED.values(), ids=GARBLED.keys())
def test_garbled_archives_are_a_400_not_a_500(victim, other, client_for, make, untouched):
    response = post(client_for(other), make(victim))
    assert response.status_code == 400, response.content


# Values no column holds, or no release has; the checksums cannot catch them (the files rebuilt
# from the rows would repeat them), so they are named before any row is written.
OUT_OF_RANGE = {
    "a count past the column": (lambda v: item_with_ref(v, n=2**40), "origin or n"),
    "a weight past a float": (lambda v: item_with_ref(v, weight=10**400), "weight"),
    "a mean past a float": (lambda v: item_with_ref(v, mean=-(10**400)), "mean"),
    "a weight past +1": (lambda v: item_with_ref(v, z_weight=7), "z_weight"),
    "an interval past -1": (lambda v: item_with_ref(v, ci_low=-1.5), "ci_low"),
    "a NUL in a rater's name": (
        lambda v: garbled(v, "ratings.tsv", b"h\nd1\tdev\t0\tr0\x001\t3\n"),
        "ratings.tsv: line 2 contains a NUL byte",
    ),
    "public splits of objects": (
        lambda v: release_json_with(v, public_splits=[{"a": 1}]),
        "unknown split",
    ),
}


@pytest.mark.parametrize(("make", "named"), OUT_OF_RANGE.values(), ids=OUT_OF_RANGE.keys())
def test_values_out_of_range_are_named(victim, other, client_for, make, named, untouched):
    response = post(client_for(other), make(victim))
    assert response.status_code == 400, response.content
    assert named in json.dumps(response.json()), response.content


def test_the_command_reports_a_garbled_archive(victim, other, tmp_path_factory, untouched):
    path = tmp_path_factory.mktemp("upload") / "bad.zip"
    path.write_bytes(archive_of(victim)[:-10])
    with pytest.raises(CommandError, match="not a zip archive"):
        call_command("import_release", str(path), "--owner", "other", "--slug", "x")


def bomb_archive(victim, **kwargs) -> bytes:
    return zip_bomb(GIB, folder="pub-1.0.0", **kwargs)


def test_a_zip_bomb_is_a_413_naming_the_limit(victim, other, client_for, settings, untouched):
    response = post(client_for(other), bomb_archive(victim, entries=5))
    assert response.status_code == 413
    assert response.json()["limit"] == "ARCHIVE_MAX_RATIO" and response.json()["value"] == 100
    assert "ARCHIVE_MAX_RATIO = 100" in response.json()["detail"]
    settings.ARCHIVE_MAX_RATIO = 10_000
    response = post(client_for(other), bomb_archive(victim, entries=5))
    assert response.status_code == 413
    assert response.json()["limit"] == "ARCHIVE_MAX_INFLATED_BYTES"


def test_a_hundred_thousand_entries_are_a_413(victim, other, client_for, untouched):
    response = post(client_for(other), zip_many_entries(100_000))
    assert response.status_code == 413 and response.json()["limit"] == "ARCHIVE_MAX_ENTRIES"


def test_a_long_line_is_a_413(victim, other, client_for, settings, untouched):
    settings.UPLOAD_MAX_LINE_BYTES = 100
    response = post(client_for(other), archive_of(victim))
    assert response.status_code == 413 and response.json()["limit"] == "UPLOAD_MAX_LINE_BYTES"


def test_an_upload_over_the_import_size_is_a_413(victim, other, client_for, settings, untouched):
    settings.IMPORT_MAX_BYTES = 1000
    response = post(client_for(other), archive_of(victim))
    assert response.status_code == 413 and response.json()["limit"] == "IMPORT_MAX_BYTES"


def test_the_command_names_the_limit(victim, other, tmp_path_factory, untouched):
    path = tmp_path_factory.mktemp("upload") / "bomb.zip"
    path.write_bytes(bomb_archive(victim))
    with pytest.raises(CommandError, match="ARCHIVE_MAX_RATIO = 100"):
        call_command("import_release", str(path), "--owner", "other", "--slug", "x")


def test_a_failure_after_the_files_are_written_leaves_nothing(
    victim, other, monkeypatch, untouched
):
    save = Release.save

    def failing_save(self, *args, **kwargs):
        if self.status == "published" and self.imported:
            raise RuntimeError("the database went away")
        return save(self, *args, **kwargs)

    monkeypatch.setattr(Release, "save", failing_save)
    with pytest.raises(RuntimeError):
        release_import_archive(source=archive_of(victim), owner=other, slug="copy")


def test_a_storage_failure_while_writing_leaves_nothing(victim, other, monkeypatch, untouched):
    disk_full_at(monkeypatch, default_storage, 4)
    with pytest.raises(OSError, match=DISK_FULL):
        release_import_archive(source=archive_of(victim), owner=other, slug="copy")


def test_a_good_archive_still_imports_into_a_folder_of_its_own(victim, other, client_for):
    response = post(client_for(other), archive_of(victim), slug="pub-copy")
    assert response.status_code == 201
    copy = Release.objects.get(dataset__slug="pub-copy")
    assert copy.manifest_checksum == victim.manifest_checksum
    assert copy.storage_prefix != victim.storage_prefix
    assert copy.storage_prefix.startswith(f"releases/{copy.dataset_id}/1.0.0/")
