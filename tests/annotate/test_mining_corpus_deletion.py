"""Deleting a corpus: its owner (or staff) deletes it with its uploaded file and its index, by
the API or its page; not while a run reads it. A refused upload stays on its page until then,
with its problems; a corpus that `corpus_add` could not index leaves nothing."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.mining.models import Corpus
from annotate.mining.services.mining import mining_start
from core.runs.models import Run
from tests.conftest import DATA
from tests.mining_fixtures import index_corpus
from tests.runs_kit import execute

pytestmark = pytest.mark.django_db


def _files(media: Path) -> list[str]:
    return sorted(str(p.relative_to(media)) for p in media.rglob("*") if p.is_file())


@pytest.fixture
def refused(client_for, owner, media):
    """An upload whose indexing run refused it: a failed corpus, listed with its problems."""
    file = SimpleUploadedFile("bad.jsonl", (DATA / "mining_bad_corpus.jsonl").read_bytes())
    response = client_for(owner).post("/api/v1/corpora/", {"name": "Bad", "file": file})
    assert response.status_code == 202
    assert execute(Run.objects.get()).state == "failed"
    corpus = Corpus.objects.get()
    assert corpus.status == "failed" and corpus.problems
    return corpus


def test_the_owner_deletes_a_refused_upload_with_its_file(
    refused, client_for, owner, media, django_capture_on_commit_callbacks
):
    assert _files(media) == ["corpora/uploads/bad.jsonl"]
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(owner).delete(f"/api/v1/corpora/{refused.pk}/")
    assert response.status_code == 204
    assert not Corpus.objects.exists() and _files(media) == []
    assert client_for(owner).get("/api/v1/corpora/").json()["results"] == []


def test_deleting_a_ready_corpus_removes_its_index_and_cached_copy(
    corpus, client_for, owner, media, settings, django_capture_on_commit_callbacks
):
    assert any(name.startswith(f"corpora/{corpus.pk}/index-") for name in _files(media))
    cached = Path(settings.VAR_DIR) / "cache" / "corpora" / str(corpus.pk) / "x"
    cached.mkdir(parents=True)
    with django_capture_on_commit_callbacks(execute=True):
        assert client_for(owner).delete(f"/api/v1/corpora/{corpus.pk}/").status_code == 204
    assert _files(media) == [] and not cached.parent.exists()


@pytest.mark.parametrize(
    ("who", "shared", "status"),
    [
        ("staff", False, 204),
        ("other", True, 403),  # sees it, may mine it, may not delete it
        ("other", False, 404),  # does not know it exists
        ("rater", True, 404),  # corpora are shared with researchers only
        ("anonymous", True, 403),
    ],
)
def test_only_the_owner_or_staff_delete_a_corpus(
    media, owner, client_for, user_named, who, shared, status
):
    corpus = index_corpus(owner, shared=shared)
    response = client_for(user_named(who)).delete(f"/api/v1/corpora/{corpus.pk}/")
    assert response.status_code == status
    assert Corpus.objects.filter(pk=corpus.pk).exists() == (status != 204)


def test_not_while_it_is_being_indexed(client_for, owner, media):
    file = SimpleUploadedFile("chat.jsonl", (DATA / "mining_corpus.jsonl").read_bytes())
    client_for(owner).post("/api/v1/corpora/", {"name": "Chat", "file": file})
    corpus = Corpus.objects.get()  # its indexing run is queued
    response = client_for(owner).delete(f"/api/v1/corpora/{corpus.pk}/")
    assert response.status_code == 409 and "being indexed" in response.json()["detail"]
    assert Corpus.objects.filter(pk=corpus.pk).exists() and _files(media)


def test_not_while_a_mining_run_reads_it(seeds, corpus, client_for, owner, media):
    mining_start(user=owner, dataset=seeds, corpus=corpus, enqueue=False)  # queued
    response = client_for(owner).delete(f"/api/v1/corpora/{corpus.pk}/")
    assert response.status_code == 409 and "mining run" in response.json()["detail"]
    assert Corpus.objects.filter(pk=corpus.pk).exists()


def test_the_page_asks_for_the_name_then_deletes(
    refused, client_for, owner, other, django_capture_on_commit_callbacks
):
    client = client_for(owner)
    detail = client.get(f"/corpora/{refused.pk}/").content.decode()
    assert f'href="/corpora/{refused.pk}/delete/"' in detail
    assert "Type the corpus" not in client.get(f"/corpora/{refused.pk}/delete/").content.decode()
    wrong = client.post(f"/corpora/{refused.pk}/delete/", {"confirm": "bad"})
    assert wrong.status_code == 400 and Corpus.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(f"/corpora/{refused.pk}/delete/", {"confirm": "Bad"})
    assert done.status_code == 302 and done["Location"] == "/corpora/"
    assert not Corpus.objects.exists()


def test_the_page_offers_deletion_to_the_owner_only(media, owner, other, client_for):
    shared = index_corpus(owner, shared=True)
    page = client_for(other).get(f"/corpora/{shared.pk}/").content.decode()
    assert "/delete/" not in page
    assert client_for(other).get(f"/corpora/{shared.pk}/delete/").status_code == 403
    assert client_for(other).post(f"/corpora/{shared.pk}/delete/", {"confirm": shared.name})
    assert Corpus.objects.filter(pk=shared.pk).exists()
