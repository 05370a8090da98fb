"""Corpus indexing and mining run in a real worker process, from API calls to candidates."""

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.datasets.models import Reference
from annotate.mining.models import Corpus
from annotate.mining.services.corpora import CorpusInvalid, corpus_index_job
from annotate.mining.services.mining import mining_run
from core.runs.kinds import get_kind, queue_for
from core.runs.models import Run
from tests.conftest import DATA
from tests.workers import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_upload_index_and_mine_through_the_api(
    celery_worker_process, make_dataset, client_for, owner
):
    seeds = make_dataset(slug="seeds", data="mining_seeds.jsonl")
    client = client_for(owner)
    file = SimpleUploadedFile("chat.jsonl", (DATA / "mining_corpus.jsonl").read_bytes())
    indexing = client.post("/api/v1/corpora/", {"name": "Chat", "file": file}).json()
    assert indexing["kind"] == "corpus-index"
    done = wait_for(
        lambda: Run.objects.filter(pk=indexing["id"], state__in=Run.ENDED).first(),
        what="the corpus to be indexed",
    )
    assert done.state == "succeeded", done.reason
    corpus = Corpus.objects.get()
    assert (corpus.status, corpus.rows) == ("ready", 10)
    assert done.scope == f"corpus:{corpus.pk}"

    started = client.post(
        "/api/v1/datasets/seeds/mining/", {"corpus": corpus.pk}, format="json"
    ).json()
    wait_for(
        lambda: client.get(f"/api/v1/runs/{started['id']}/").json()["state"] == "succeeded",
        what="the mining run",
    )
    run = client.get("/api/v1/datasets/seeds/mining/").json()
    assert (run["id"], run["scope"]) == (started["id"], f"dataset:{seeds.pk}")
    assert (run["percent"], run["result"]) == (100, {"items": 2, "mined": 3, "parroted": 2})
    assert Reference.objects.filter(origin="mined").count() == 3


def test_mining_runs_are_known_to_the_run_engine():
    mining, indexing = get_kind("mining"), get_kind("corpus-index")
    assert (mining.body, indexing.body) == (mining_run, corpus_index_job)
    assert CorpusInvalid in indexing.refusals  # a bad file is refused, never retried
    assert queue_for(mining) == queue_for(indexing) == settings.CELERY_HEAVY_QUEUE
