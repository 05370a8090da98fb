"""Mining pages and API: who may see and do what (owner, other user, anonymous, staff)."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.datasets.models import Reference, Visibility
from annotate.mining.models import Corpus
from annotate.mining.services.mining import mining_start
from core.runs.models import Run
from tests.conftest import DATA
from tests.mining_fixtures import index_corpus
from tests.runs_kit import execute

pytestmark = pytest.mark.django_db


@pytest.fixture
def mined(owner, seeds, corpus):
    run = execute(mining_start(user=owner, dataset=seeds, corpus=corpus, enqueue=False))
    assert run.state == "succeeded", run.reason
    return seeds


PAGES = ["/datasets/seeds/mining/", "/datasets/seeds/mining/candidates/"]


@pytest.mark.parametrize("url", PAGES)
@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("staff", 200), ("other", 404), ("anonymous", 302)]
)
def test_mining_pages_of_a_private_dataset(mined, client_for, user_named, url, who, status):
    assert client_for(user_named(who)).get(url).status_code == status


@pytest.mark.parametrize("url", PAGES)
def test_others_may_not_mine_a_public_dataset(make_dataset, client_for, other, url):
    make_dataset(slug="seeds", visibility=Visibility.PUBLIC, data="mining_seeds.jsonl")
    assert client_for(other).get(url).status_code == 403
    assert client_for(other).post(url, {}).status_code == 403


def test_the_dataset_page_links_to_mining_and_shows_the_last_run(mined, client_for, owner, other):
    page = client_for(owner).get("/datasets/seeds/").content.decode()
    assert "/datasets/seeds/mining/" in page and 'class="job"' in page
    mined.visibility = Visibility.PUBLIC
    mined.save()
    page = client_for(other).get("/datasets/seeds/").content.decode()
    assert "/datasets/seeds/mining/" not in page and 'class="job"' not in page


def test_the_owner_starts_a_run_from_the_page(
    seeds, corpus, client_for, owner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        response = client_for(owner).post(
            "/datasets/seeds/mining/", {"corpus": corpus.pk, "split": "dev", "k": 5}
        )
    assert response.status_code == 302 and len(callbacks) == 1  # the task is sent on commit
    run = Run.objects.get(kind="mining")
    assert (run.scope, run.state) == (f"dataset:{seeds.pk}", "queued")
    assert run.params == {
        "dataset_id": seeds.pk,
        "corpus_id": corpus.pk,
        "corpus": corpus.name,
        "split": "dev",
        "k": 5,
    }
    page = client_for(owner).get("/datasets/seeds/mining/").content.decode()
    assert f"/api/v1/runs/{run.pk}/" in page


def test_review_lists_filters_and_removes(mined, client_for, owner):
    client = client_for(owner)
    page = client.get("/datasets/seeds/mining/candidates/").content.decode()
    assert "5 candidates" in page and "try the pizza place next to the station" in page
    pizza = Reference.objects.get(text="try the pizza place next to the station")
    high = client.get(f"/datasets/seeds/mining/candidates/?min_score={pizza.provenance['score']}")
    assert "1 candidates" in high.content.decode()
    response = client.post("/datasets/seeds/mining/candidates/", {"remove": [pizza.pk]})
    assert response.status_code == 302
    assert not Reference.objects.filter(pk=pizza.pk).exists()


def test_ids_that_name_nothing_remove_nothing(mined, client_for, owner):
    before = Reference.objects.count()
    ids = ["²", "9" * 30, "9" * 5000, "x", ""]
    response = client_for(owner).post("/datasets/seeds/mining/candidates/", {"remove": ids})
    assert response.status_code == 302 and Reference.objects.count() == before


def test_others_cannot_remove_candidates(mined, client_for, other):
    mined.visibility = Visibility.PUBLIC
    mined.save()
    pizza = Reference.objects.get(text="try the pizza place next to the station")
    response = client_for(other).post("/datasets/seeds/mining/candidates/", {"remove": [pizza.pk]})
    assert response.status_code == 403 and Reference.objects.filter(pk=pizza.pk).exists()


@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("staff", 200), ("other", 404), ("anonymous", 302)]
)
def test_a_private_corpus_page(corpus, client_for, user_named, who, status):
    assert client_for(user_named(who)).get(f"/corpora/{corpus.pk}/").status_code == status


def test_a_shared_corpus_is_visible_to_other_researchers(media, owner, other, client_for):
    shared = index_corpus(owner, name="shared", shared=True)
    assert client_for(other).get(f"/corpora/{shared.pk}/").status_code == 200
    assert "shared" in client_for(other).get("/corpora/").content.decode()


@pytest.mark.parametrize("who, status", [("owner", 200), ("rater", 403), ("anonymous", 302)])
def test_the_corpus_list_is_for_researchers(client_for, user_named, who, status, media):
    assert client_for(user_named(who)).get("/corpora/").status_code == status


def test_uploading_a_corpus_queues_its_indexing(client_for, owner, media):
    file = SimpleUploadedFile("chat.jsonl.gz", (DATA / "mining_corpus.jsonl").read_bytes())
    response = client_for(owner).post("/corpora/", {"name": "Chat", "file": file, "language": "en"})
    corpus = Corpus.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/corpora/{corpus.pk}/"
    assert (corpus.format, corpus.status, corpus.source) == ("jsonl", "pending", "chat.jsonl.gz")
    indexing = Run.objects.get(kind="corpus-index")
    assert indexing.scope == f"corpus:{corpus.pk}"
    assert execute(indexing).state == "succeeded"
    corpus.refresh_from_db()
    assert (corpus.status, corpus.rows) == ("ready", 10)
    assert "10 triples indexed" in client_for(owner).get(f"/corpora/{corpus.pk}/").content.decode()


def test_a_bad_corpus_shows_its_rows_on_its_page(client_for, owner, media):
    file = SimpleUploadedFile("bad.jsonl", (DATA / "mining_bad_corpus.jsonl").read_bytes())
    client_for(owner).post("/corpora/", {"name": "Bad", "file": file, "language": "en"})
    indexing = execute(Run.objects.get())
    assert indexing.state == "failed" and indexing.refused
    page = client_for(owner).get(f"/corpora/{Corpus.objects.get().pk}/").content.decode()
    assert "Line 3, <code>response</code>: must be a non-empty string" in page


def test_a_file_of_unknown_format_is_refused(client_for, owner, media):
    file = SimpleUploadedFile("chat.csv", b"a,b,c\n")
    response = client_for(owner).post("/corpora/", {"name": "X", "file": file, "language": "en"})
    assert response.status_code == 200 and "Cannot tell the format" in response.content.decode()
    assert not Corpus.objects.exists()


# --- API ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("staff", 200), ("other", 404), ("anonymous", 403)]
)
def test_api_mining_status_and_candidates(mined, client_for, user_named, who, status):
    client = client_for(user_named(who))
    assert client.get("/api/v1/datasets/seeds/mining/").status_code == status
    response = client.get("/api/v1/datasets/seeds/mining/candidates/?min_score=0")
    assert response.status_code == status
    if status == 200:
        body = response.json()
        assert body["count"] == 3  # mined only: parroted ones have no score
        assert body["results"][0]["score"] >= body["results"][-1]["score"]
        assert {"corpus", "row", "score"} <= body["results"][0]["provenance"].keys()


@pytest.mark.parametrize("who, status", [("owner", 202), ("other", 404), ("anonymous", 403)])
def test_api_start_mining(seeds, corpus, client_for, user_named, who, status, owner):
    response = client_for(user_named(who)).post(
        "/api/v1/datasets/seeds/mining/", {"corpus": corpus.pk, "k": 3}, format="json"
    )
    assert response.status_code == status
    if status == 202:
        assert response.json()["kind"] == "mining" and response.json()["status"] == "queued"
        again = client_for(owner).post(
            "/api/v1/datasets/seeds/mining/", {"corpus": corpus.pk}, format="json"
        )
        assert again.status_code == 400 and "already under way" in str(again.json())


def test_api_cannot_mine_from_someone_else_s_private_corpus(seeds, media, other, client_for, owner):
    theirs = index_corpus(other, name="theirs")
    response = client_for(owner).post(
        "/api/v1/datasets/seeds/mining/", {"corpus": theirs.pk}, format="json"
    )
    assert response.status_code == 404


@pytest.mark.parametrize("who, status", [("owner", 204), ("other", 404), ("anonymous", 403)])
def test_api_remove_a_candidate(mined, client_for, user_named, who, status):
    pizza = Reference.objects.get(text="try the pizza place next to the station")
    url = f"/api/v1/datasets/seeds/mining/candidates/{pizza.pk}/"
    assert client_for(user_named(who)).delete(url).status_code == status
    assert Reference.objects.filter(pk=pizza.pk).exists() == (status != 204)


def test_api_does_not_remove_original_references(mined, client_for, owner):
    original = Reference.objects.get(text="the keeper had no chance on that goal")
    url = f"/api/v1/datasets/seeds/mining/candidates/{original.pk}/"
    assert client_for(owner).delete(url).status_code == 404


@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("staff", 200), ("other", 404), ("anonymous", 403)]
)
def test_api_corpus_detail(corpus, client_for, user_named, who, status):
    response = client_for(user_named(who)).get(f"/api/v1/corpora/{corpus.pk}/")
    assert response.status_code == status
    if status == 200:
        assert response.json()["rows"] == 10 and response.json()["status"] == "ready"


@pytest.mark.parametrize("who, seen", [("other", True), ("rater", False), ("owner", True)])
def test_a_shared_corpus_is_shared_with_researchers_only(corpus, client_for, user_named, who, seen):
    # A rater's API answered with shared corpora, while the corpora pages refused raters.
    Corpus.objects.filter(pk=corpus.pk).update(shared=True)
    client = client_for(user_named(who))
    assert client.get(f"/api/v1/corpora/{corpus.pk}/").status_code == (200 if seen else 404)
    assert [c["id"] for c in client.get("/api/v1/corpora/").json()["results"]] == (
        [corpus.pk] if seen else []
    )


@pytest.mark.parametrize("who, status", [("owner", 202), ("rater", 403), ("anonymous", 403)])
def test_api_upload_a_corpus(client_for, user_named, who, status, media):
    file = SimpleUploadedFile("chat.tsv", b"message\tresponse\nhi\tyo\n")
    response = client_for(user_named(who)).post("/api/v1/corpora/", {"name": "T", "file": file})
    assert response.status_code == status
    if status == 202:
        assert response.json()["kind"] == "corpus-index"
        assert Corpus.objects.get().format == "tsv"


def test_api_lists_own_and_shared_corpora(media, owner, other, client_for):
    index_corpus(owner, name="mine")
    index_corpus(other, name="theirs")
    index_corpus(other, name="shared", shared=True)
    names = [c["name"] for c in client_for(owner).get("/api/v1/corpora/").json()["results"]]
    assert names == ["mine", "shared"]


def test_a_run_without_a_result_prints_no_python_repr(
    seeds, corpus, client_for, owner, django_capture_on_commit_callbacks
):
    """A queued run has no counts yet: the page once printed `dict_items([])` for them."""
    with django_capture_on_commit_callbacks(execute=False):
        mining_start(user=owner, dataset=seeds, corpus=corpus, split="dev", k=5)
    page = client_for(owner).get("/datasets/seeds/mining/").content.decode()
    assert "dict_items" not in page and 'id="mining-result"' not in page


def test_a_finished_run_shows_its_counts(mined, client_for, owner):
    page = client_for(owner).get("/datasets/seeds/mining/").content.decode()
    assert 'id="mining-result"' in page and "mined and" in page


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e309", "abc"])
def test_a_score_bound_that_is_not_a_finite_number_is_named(mined, client_for, owner, value):
    # nan and inf passed float() and then matched nothing: "0 candidates", silently.
    client = client_for(owner)
    api = client.get(f"/api/v1/datasets/seeds/mining/candidates/?min_score={value}")
    assert api.status_code == 400 and api.json() == {"min_score": ["Give a finite number."]}
    page = client.get(f"/datasets/seeds/mining/candidates/?min_score={value}")
    assert page.status_code == 200 and "pizza" in page.content.decode()  # no bound, as if none
