"""Corpus indexing and mining run in a real worker process, from API calls to candidates."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.models import Corpus, Job, Reference
from annotate.services.jobs import JOB_TASKS
from tests.conftest import DATA
from tests.workers import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_upload_index_and_mine_through_the_api(
    celery_worker_process, make_dataset, client_for, owner
):
    make_dataset(slug="seeds", data="mining_seeds.jsonl")
    client = client_for(owner)
    file = SimpleUploadedFile("chat.jsonl", (DATA / "mining_corpus.jsonl").read_bytes())
    indexing = client.post("/api/v1/corpora/", {"name": "Chat", "file": file}).json()
    done = wait_for(
        lambda: Job.objects.filter(pk=indexing["id"], status__in=["finished", "failed"]).first(),
        what="the corpus to be indexed",
    )
    assert done.status == "finished", done.message
    corpus = Corpus.objects.get()
    assert (corpus.status, corpus.rows) == ("ready", 10)

    started = client.post(
        "/api/v1/datasets/seeds/mining/", {"corpus": corpus.pk}, format="json"
    ).json()
    wait_for(
        lambda: client.get(f"/api/v1/jobs/{started['id']}/").json()["status"] == "finished",
        what="the mining run",
    )
    job = client.get("/api/v1/datasets/seeds/mining/").json()
    assert (job["percent"], job["result"]) == (100, {"items": 2, "mined": 3, "parroted": 2})
    assert Reference.objects.filter(origin="mined").count() == 3


def test_mining_tasks_are_known_to_the_stale_job_sweep():
    assert JOB_TASKS["mining"] == "annotate.tasks.mine"
    assert JOB_TASKS["corpus-index"] == "annotate.tasks.corpus_index"
