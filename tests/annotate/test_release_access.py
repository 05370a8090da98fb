"""Who sees and changes which release, through every page and endpoint."""

import pytest
from django.urls import reverse

from annotate.rating.models import Weight
from annotate.releases.models import Release, ReleaseReference
from tests.annotate.release_kit import (
    archive_run,
    freeze,
    published,
    rated,
    shared_world,
)

pytestmark = pytest.mark.django_db
HIDDEN = "try the one with the blue door"


def _two_datasets(owner, *makers):
    """A public dataset with release 1.0.0 published and 1.1.0 a draft, and a private dataset
    with a published release."""
    dataset, campaign = rated(*makers)
    published(dataset, campaign, owner)
    Weight.objects.filter(campaign=campaign, weight=-0.25).update(weight=0.3)
    freeze(dataset, campaign, owner, version="1.1.0")
    secret, secret_campaign = rated(*makers, slug="secret", visibility="private")
    published(secret, secret_campaign, owner)
    return dataset


shared, world = shared_world(_two_datasets)


def page(view, slug="chat", version="1.0.0", **extra):
    return reverse(view, kwargs={"slug": slug, "version": version, **extra})


api = page


READABLE = [
    lambda s, v: page("release-detail", s, v),
    lambda s, v: page("release-file", s, v, name="README.md"),
    lambda s, v: page("release-file", s, v, name="items.jsonl"),
    lambda s, v: api("api-release", s, v),
    lambda s, v: api("api-release-manifest", s, v),
    lambda s, v: api("api-release-file", s, v, name="refs.dev.jsonl"),
]


def body(response):
    if hasattr(response, "streaming_content"):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


@pytest.mark.parametrize("url", READABLE)
@pytest.mark.parametrize("who", ["anonymous", "other", "owner"])
def test_a_published_release_of_a_public_dataset_is_readable_without_hidden_references(
    world, url, who, client_for, owner, other
):
    user = {"anonymous": None, "other": other, "owner": owner}[who]
    response = client_for(user).get(url("chat", "1.0.0"))
    assert response.status_code == 200
    if who != "owner" or "file" in url("chat", "1.0.0"):
        assert HIDDEN not in body(response)


def test_the_owner_sees_hidden_references_on_the_release_page(world, client_for, owner):
    assert HIDDEN in body(client_for(owner).get(page("release-detail")))


@pytest.mark.parametrize("url", READABLE[:1] + READABLE[3:4])
@pytest.mark.parametrize("who", ["anonymous", "other"])
def test_drafts_and_private_datasets_are_404_to_others(world, url, who, client_for, other):
    client = client_for(None if who == "anonymous" else other)
    assert client.get(url("chat", "1.1.0")).status_code == 404
    assert client.get(url("secret", "1.0.0")).status_code == 404


@pytest.mark.parametrize("url", READABLE[:1] + READABLE[3:4])
def test_the_owner_sees_drafts_and_private_releases(world, url, client_for, owner):
    assert client_for(owner).get(url("chat", "1.1.0")).status_code == 200
    assert client_for(owner).get(url("secret", "1.0.0")).status_code == 200


def test_release_lists_show_drafts_to_the_owner_only(world, client_for, owner, other):
    url = reverse("api-releases", kwargs={"slug": "chat"})
    assert [r["version"] for r in client_for(None).get(url).json()["results"]] == ["1.0.0"]
    assert {r["version"] for r in client_for(owner).get(url).json()["results"]} == {
        "1.0.0",
        "1.1.0",
    }
    assert (
        client_for(other).get(reverse("api-releases", kwargs={"slug": "secret"})).status_code == 404
    )
    page_body = body(client_for(other).get(reverse("dataset-detail", kwargs={"slug": "chat"})))
    assert "1.0.0" in page_body and "1.1.0" not in page_body and "Freeze a release" not in page_body


@pytest.mark.parametrize("name", ["release-publish", "release-reveal", "release-delete"])
def test_only_the_owner_changes_a_release_through_pages(world, name, client_for, other, owner):
    assert client_for(None).post(page(name, version="1.1.0")).status_code == 302  # to log in
    assert client_for(other).post(page(name, version="1.1.0")).status_code == 404  # a draft
    assert client_for(other).post(page(name, version="1.0.0")).status_code == 403
    assert Release.objects.get(dataset__slug="chat", version="1.1.0").status == "draft"


@pytest.mark.parametrize("name", ["api-release-publish", "api-release-reveal"])
def test_only_the_owner_changes_a_release_through_the_api(world, name, client_for, other):
    assert client_for(None).post(api(name, version="1.0.0")).status_code in (401, 403)
    assert client_for(other).post(api(name, version="1.0.0")).status_code == 403
    assert client_for(other).post(api(name, version="1.1.0")).status_code == 404


def test_freezing_pages_and_api_are_for_the_owner(world, client_for, owner, other):
    new = reverse("release-new", kwargs={"slug": "chat"})
    assert client_for(None).get(new).status_code == 302
    assert client_for(other).get(new).status_code == 403
    assert client_for(owner).get(new).status_code == 200
    url = reverse("api-releases", kwargs={"slug": "chat"})
    campaign = world.campaigns.get().pk
    assert (
        client_for(other).post(url, {"version": "2.0.0", "campaign": campaign}).status_code == 403
    )
    response = client_for(owner).post(
        url, {"version": "2.0.0", "campaign": campaign, "public_splits": ["dev"]}, format="json"
    )
    assert response.status_code == 201 and response.json()["status"] == "draft"


def test_the_owner_freezes_and_publishes_through_pages(world, client_for, owner):
    client = client_for(owner)
    response = client.post(
        reverse("release-new", kwargs={"slug": "chat"}),
        {
            "version": "3.0.0",
            "campaign": world.campaigns.get().pk,
            "weight_variant": "raw",
            "public_splits": ["dev"],
            "license": "CC-BY-4.0",
        },
    )
    assert response.status_code == 302
    publish = page("release-publish", version="3.0.0")
    confirmation = client.get(publish)
    assert confirmation.status_code == 200 and "chat@3.0.0" in body(confirmation)
    assert client.post(publish).status_code == 400  # the name was not typed
    assert Release.objects.get(version="3.0.0", dataset=world).status == "draft"
    assert client.post(publish, {"confirm": "chat@3.0.0"}).status_code == 302
    assert Release.objects.get(version="3.0.0", dataset=world).status == "published"


def test_the_archive_is_202_until_built_then_downloadable(world, client_for, owner):
    url = api("api-release-archive")
    assert client_for(None).get(url).status_code == 202
    assert client_for(None).get(page("release-archive")).status_code == 404
    release = Release.objects.get(dataset=world, version="1.0.0")
    assert archive_run(release, owner).state == "succeeded"
    response = client_for(None).get(page("release-archive"))
    assert response.status_code == 200
    assert HIDDEN.encode() not in b"".join(response.streaming_content)
    assert client_for(None).get(url).status_code == 200


def test_files_outside_the_manifest_are_404(world, client_for, owner):
    for name in ("secret.txt", "refs.test.jsonl", "..%2Fsecret"):
        assert client_for(owner).get(page("release-file", name=name)).status_code == 404


def test_the_diff_shows_weight_changes_and_hides_hidden_splits_from_others(
    world, client_for, owner, other
):
    url = reverse("api-release-diff", kwargs={"slug": "chat"}) + "?old=1.0.0&new=1.1.0"
    assert client_for(other).get(url).status_code == 404  # 1.1.0 is a draft
    mine = client_for(owner).get(url).json()
    assert [w["text"] for w in mine["weights_changed"]] == ["i missed it, was it good?"]
    assert mine["hidden_splits"] == []
    Release.objects.filter(version="1.1.0").delete()
    freeze_and_publish = published(
        world, world.campaigns.get(), owner, version="1.2.0", public_splits=["dev"]
    )
    url = reverse("api-release-diff", kwargs={"slug": "chat"}) + "?old=1.0.0&new=1.2.0"
    theirs = client_for(other).get(url).json()
    assert theirs["hidden_splits"] == ["test"] and freeze_and_publish.version == "1.2.0"
    html = body(
        client_for(other).get(
            reverse("release-diff", kwargs={"slug": "chat"}) + "?old=1.0.0&new=1.2.0"
        )
    )
    assert "Weights changed: 1" in html and HIDDEN not in html


@pytest.mark.parametrize("view", ["release-file", "api-release-file"])
def test_a_release_file_carries_its_sha256_as_its_etag(world, client_for, view):
    # Published files never change: a client that has one is told so without its bytes.
    from annotate.releases.models import Release

    release = Release.objects.get(dataset__slug="chat", version="1.0.0")
    entry = next(e for e in release.manifest["files"] if e["name"] == "items.jsonl")
    url, client = page(view, name="items.jsonl"), client_for(None)
    first = client.get(url)
    assert first.status_code == 200 and first["ETag"] == f'"{entry["sha256"]}"'
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert client.get(url, HTTP_IF_NONE_MATCH='"other"').status_code == 200
    assert client.get(url, HTTP_IF_MATCH='"other"').status_code == 412
    manifest = client.get(page(view, name="manifest.json"))
    assert manifest["ETag"] == f'"{release.manifest_checksum}"'


@pytest.mark.parametrize("view", ["release-file", "api-release-file"])
def test_a_broken_off_download_resumes_where_it_stopped(world, client_for, view):
    # Files and the archive are served alike (core.http.stored_download).
    url = page(view, name="items.jsonl")
    client = client_for(None)
    whole = client.get(url)
    body, etag = b"".join(whole.streaming_content), whole["ETag"]
    assert whole.status_code == 200 and whole["Accept-Ranges"] == "bytes"

    rest = client.get(url, HTTP_RANGE="bytes=10-", HTTP_IF_RANGE=etag)
    assert rest.status_code == 206 and b"".join(rest.streaming_content) == body[10:]
    assert rest["Content-Range"] == f"bytes 10-{len(body) - 1}/{len(body)}"
    assert rest["Content-Length"] == str(len(body) - 10)
    middle = client.get(url, HTTP_RANGE="bytes=3-7")
    assert b"".join(middle.streaming_content) == body[3:8]
    tail = client.get(url, HTTP_RANGE="bytes=-4")
    assert tail.status_code == 206 and b"".join(tail.streaming_content) == body[-4:]
    # Another version than the one the client holds part of: the whole file, from the start.
    changed = client.get(url, HTTP_RANGE="bytes=10-", HTTP_IF_RANGE='"other"')
    assert changed.status_code == 200 and b"".join(changed.streaming_content) == body
    past = client.get(url, HTTP_RANGE=f"bytes={len(body)}-")
    assert past.status_code == 416 and past["Content-Range"] == f"bytes */{len(body)}"


def test_a_diff_without_its_two_versions_is_a_400_naming_them(world, client_for, owner):
    url = reverse("api-release-diff", kwargs={"slug": "chat"})
    answer = client_for(owner).get(url + "?old=1.0.0")  # was a 404, as if the dataset were gone
    assert answer.status_code == 400 and list(answer.json()) == ["new"]
    assert client_for(owner).get(url + "?old=1.0.0&new=9.9.9").status_code == 404


def test_importing_an_archive_through_the_api_is_for_researchers(world, client_for, owner, rater):
    import io

    from django.core.files.storage import default_storage

    release = Release.objects.get(dataset=world, version="1.0.0")
    assert archive_run(release, owner).state == "succeeded"
    release.refresh_from_db()
    data = default_storage.open(release.archive_name).read()
    url = reverse("api-release-import")

    def upload(user, slug):
        archive = io.BytesIO(data)
        archive.name = "chat.zip"
        return client_for(user).post(url, {"archive": archive, "slug": slug}, format="multipart")

    assert upload(None, "a").status_code in (401, 403)
    assert upload(rater, "b").status_code == 403
    response = upload(owner, "chat-imported")
    assert response.status_code == 201
    assert response.json()["manifest_checksum"] == release.manifest_checksum


def test_the_release_page_rounds_weights_the_files_keep_whole(world, client_for, owner):
    draft = ReleaseReference.objects.filter(
        release__dataset__slug="chat", release__version="1.1.0"
    ).order_by("pk")[:1]
    ReleaseReference.objects.filter(pk__in=draft).update(weight=0.5, z_weight=-0.003161201760982335)
    shown = body(client_for(owner).get(page("release-detail", version="1.1.0")))
    assert "w=0.500 z=-0.003" in shown and "0.003161201760982335" not in shown
