"""The release archive endpoint: the owner requests it, a run builds it once, anyone who sees the
release downloads it; others cannot start a build."""

import hashlib
import io
import zipfile

import pytest
from django.urls import reverse

from annotate.releases.models import Release
from core.runs.models import Run
from tests.annotate.release_kit import _media, freeze, published, rated  # noqa: F401
from tests.runs_kit import execute

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(owner, make_dataset, make_campaign, make_rater):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    return published(dataset, campaign, owner)


def url(release):
    kwargs = {"slug": release.dataset.slug, "version": release.version}
    return reverse("api-release-archive", kwargs=kwargs)


@pytest.fixture
def request_archive(client_for, django_capture_on_commit_callbacks):
    def post(user, release):
        with django_capture_on_commit_callbacks(execute=False):  # no broker: the test runs it
            return client_for(user).post(url(release))

    return post


def test_the_owner_requests_the_archive_once_and_a_run_builds_it(
    release, owner, client_for, request_archive
):
    response = request_archive(owner, release)
    assert response.status_code == 202 and response.json()["status"] == "building"
    run = Run.objects.get(pk=response.json()["run"])
    assert (run.kind, run.scope) == ("release-archive", f"release:{release.pk}")
    assert run.state == "queued"
    # Asking again, or looking, while it is built names the same run: one build per release.
    assert request_archive(owner, release).json()["run"] == run.pk
    looked = client_for(None).get(url(release)).json()
    assert looked == {"status": "building", "run": run.pk, "state": "queued", "waiting_reason": ""}
    assert Run.objects.filter(kind="release-archive").count() == 1

    assert execute(run).state == "succeeded"
    release.refresh_from_db()
    ready = request_archive(owner, release)
    assert ready.status_code == 200
    assert ready.json() == {
        "status": "ready",
        "state": "succeeded",
        "waiting_reason": "",
        "sha256": release.archive_sha256,
    }
    assert Run.objects.filter(kind="release-archive").count() == 1


def test_an_imported_release_builds_its_archive_as_a_published_one_does(
    release, other, client_for, django_capture_on_commit_callbacks
):
    # The import left none: its archive answered "building" with no run, forever.
    from django.core.files.storage import default_storage

    from annotate.releases.services.importing import release_import_archive
    from tests.annotate.release_kit import archive_run

    assert archive_run(release, release.created_by).state == "succeeded"
    release.refresh_from_db()
    archive = default_storage.open(release.archive_name).read()
    with django_capture_on_commit_callbacks(execute=True):
        copy = release_import_archive(source=archive, owner=other, slug="chat-copy")
    run = Run.objects.get(kind="release-archive", scope=f"release:{copy.pk}")
    looked = client_for(other).get(url(copy)).json()
    assert (looked["status"], looked["run"], looked["state"]) == ("building", run.pk, "queued")


def test_the_built_archive_downloads_as_a_zip_of_the_manifests_files(
    release, owner, client_for, request_archive
):
    execute(request_archive(owner, release).json()["run"])
    release.refresh_from_db()
    response = client_for(None).get(url(release))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == 'attachment; filename="chat-1.0.0.zip"'
    data = b"".join(response.streaming_content)
    assert hashlib.sha256(data).hexdigest() == release.archive_sha256
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = {name.split("/", 1)[1] for name in archive.namelist()}
        assert {name.split("/")[0] for name in archive.namelist()} == {"chat-1.0.0"}
    assert names == {entry["name"] for entry in release.manifest["files"]} | {"manifest.json"}


@pytest.mark.parametrize("who", ["other", "rater", "anonymous"])
def test_only_the_owner_starts_a_build(release, who, user_named, request_archive):
    user = user_named(who)
    response = request_archive(user, release)
    assert response.status_code == 403
    assert not Run.objects.filter(kind="release-archive").exists()


@pytest.mark.parametrize("who", ["other", "rater", "anonymous"])
def test_looking_before_a_build_is_202_without_starting_one(release, who, user_named, client_for):
    user = user_named(who)
    response = client_for(user).get(url(release))
    assert response.status_code == 202
    nothing = {"status": "building", "run": None, "state": None, "waiting_reason": ""}
    assert response.json() == nothing
    assert not Run.objects.filter(kind="release-archive").exists()


@pytest.mark.parametrize("who", ["other", "rater", "anonymous"])
def test_a_private_datasets_archive_is_404_to_others(
    owner, make_dataset, make_campaign, make_rater, who, user_named, client_for, request_archive
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater, visibility="private")
    private = published(dataset, campaign, owner)
    execute(request_archive(owner, private).json()["run"])
    user = user_named(who)
    assert client_for(user).get(url(private)).status_code == 404
    # Anonymous is refused before the release is looked up; others are told it does not exist.
    assert request_archive(user, private).status_code == (403 if user is None else 404)
    assert client_for(owner).get(url(private)).status_code == 200


def test_a_draft_has_no_archive(
    owner, make_dataset, make_campaign, make_rater, client_for, request_archive
):
    dataset, campaign = rated(make_dataset, make_campaign, make_rater)
    draft = freeze(dataset, campaign, owner)
    assert request_archive(owner, draft).status_code == 400
    assert client_for(owner).get(url(draft)).status_code == 404
    assert not Run.objects.filter(kind="release-archive").exists()
    assert not Release.objects.get(pk=draft.pk).archive_name


def test_a_queued_build_says_its_state_and_why_it_waits(
    release, owner, client_for, request_archive
):
    # The archive's own words (building, ready) beside its run's state, in every run's words.
    from tests.runs_kit import live_workers, waited

    live_workers([])
    run = waited(request_archive(owner, release).json()["run"])
    looked = client_for(owner).get(url(release)).json()
    assert (looked["state"], looked["run"]) == ("queued", run.pk)
    assert looked["waiting_reason"].startswith("No running worker takes heavy work")


def test_the_schema_gives_the_archive_the_run_states_enum(client):
    schema = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    state = schema["ArchiveStatus"]["properties"]["state"]
    assert "RunStateEnum" in str(state)
