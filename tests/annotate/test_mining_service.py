"""Mining runs: candidates added with provenance, idempotent, one at a time, removal sticks."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from annotate.datasets.models import Dataset, Reference
from annotate.datasets.services.datasets import dataset_delete
from annotate.mining.index import CorpusIndex
from annotate.mining.models import Corpus, CorpusStatus, DismissedCandidate
from annotate.mining.services.corpora import CorpusInvalid, corpus_index_dir
from annotate.mining.services.mining import (
    mining_start,
    references_remove_mined,
)
from core.runs.models import Run, RunState
from tests.conftest import DATA
from tests.mining_fixtures import index_corpus
from tests.runs_kit import execute

pytestmark = pytest.mark.django_db


def run(owner, dataset, corpus, **options):
    started = mining_start(user=owner, dataset=dataset, corpus=corpus, enqueue=False, **options)
    return execute(started)


def candidates(dataset, external_id):
    refs = Reference.objects.filter(item__split__dataset=dataset, item__external_id=external_id)
    return list(refs.order_by("position").values_list("origin", "text"))


def test_a_run_adds_mined_and_parroted_candidates_after_the_originals(owner, seeds, corpus):
    mined = run(owner, seeds, corpus)
    assert mined.state == RunState.SUCCEEDED and mined.percent == 100
    assert mined.result == {"items": 2, "mined": 3, "parroted": 2}  # the dev split: s1, s2
    assert candidates(seeds, "s1") == [
        ("original", "the keeper had no chance on that goal"),
        ("mined", "best finish of the season, keeper had no chance"),
        ("mined", "that late goal was amazing, the keeper had no chance"),
        ("parroted", "yes what a finish, that goal in the last minute"),
    ]
    assert candidates(seeds, "s2")[1:] == [
        ("mined", "try the pizza place next to the station"),
        ("parroted", "any good pizza places near the station?"),
    ]
    assert candidates(seeds, "s3") == [("original", "cats love pushing plants off shelves")]


def test_provenance_names_the_corpus_row_and_score(owner, seeds, corpus):
    mining = run(owner, seeds, corpus)
    mined = Reference.objects.get(text="try the pizza place next to the station")
    p = mined.provenance
    assert (p["corpus"], p["corpus_id"], p["row"], p["rank"], p["run"]) == (
        "chat corpus",
        corpus.pk,
        7,
        1,
        mining.pk,
    )
    assert p["score"] > 0 and p["source_message"] == "pizza near the station?"


def test_running_again_adds_nothing(owner, seeds, corpus):
    run(owner, seeds, corpus)
    before = Reference.objects.count()
    again = run(owner, seeds, corpus)
    assert again.result == {"items": 2, "mined": 0, "parroted": 0}
    assert Reference.objects.count() == before


def test_a_larger_k_adds_only_what_is_new(owner, seeds, corpus):
    run(owner, seeds, corpus, k=1)
    assert [o for o, _ in candidates(seeds, "s1")] == ["original", "mined", "parroted"]
    run(owner, seeds, corpus, k=15)
    assert [o for o, _ in candidates(seeds, "s1")] == ["original", "mined", "parroted", "mined"]


def test_the_test_split_is_mined_on_request(owner, seeds, corpus):
    mined = run(owner, seeds, corpus, split="test")
    assert mined.result == {"items": 1, "mined": 1, "parroted": 1}
    assert candidates(seeds, "s3")[1] == ("mined", "cats and plants never mix")


def test_removed_candidates_are_not_mined_again(owner, seeds, corpus):
    run(owner, seeds, corpus)
    pizza = Reference.objects.get(text="try the pizza place next to the station")
    references_remove_mined(user=owner, dataset=seeds, reference_ids=[pizza.pk])
    assert DismissedCandidate.objects.get().text == pizza.text
    run(owner, seeds, corpus)
    assert not Reference.objects.filter(text=pizza.text).exists()


def test_only_mined_candidates_of_the_owner_s_dataset_are_removed(owner, other, seeds, corpus):
    run(owner, seeds, corpus)
    original = Reference.objects.get(text="the keeper had no chance on that goal")
    mined = Reference.objects.filter(origin="mined").first()
    with pytest.raises(PermissionDenied):
        references_remove_mined(user=other, dataset=seeds, reference_ids=[mined.pk])
    ids = [original.pk, mined.pk]
    assert references_remove_mined(user=owner, dataset=seeds, reference_ids=ids) == 1
    assert Reference.objects.filter(pk=original.pk).exists()


def test_one_run_at_a_time_per_dataset(owner, seeds, corpus):
    mining_start(user=owner, dataset=seeds, corpus=corpus, enqueue=False)
    with pytest.raises(ValidationError, match="already under way"):
        mining_start(user=owner, dataset=seeds, corpus=corpus, enqueue=False)


@pytest.mark.parametrize(
    "options, message",
    [({"split": "train"}, "Choose one of"), ({"k": 0}, "between 1 and"), ({"k": 101}, "between")],
)
def test_bad_options_are_refused(owner, seeds, corpus, options, message):
    with pytest.raises(ValidationError, match=message):
        mining_start(user=owner, dataset=seeds, corpus=corpus, enqueue=False, **options)


def test_only_the_owner_mines_and_only_from_corpora_they_may_use(owner, other, seeds, corpus):
    with pytest.raises(PermissionDenied):
        mining_start(user=other, dataset=seeds, corpus=corpus, enqueue=False)
    theirs = index_corpus(other, name="theirs")
    with pytest.raises(ValidationError, match="No such corpus"):
        mining_start(user=owner, dataset=seeds, corpus=theirs, enqueue=False)
    shared = index_corpus(other, name="shared", shared=True)
    assert mining_start(user=owner, dataset=seeds, corpus=shared, enqueue=False)


def test_cancelling_stops_a_run_between_batches(owner, seeds, corpus, monkeypatch):
    monkeypatch.setattr("annotate.mining.services.mining.MINING_BATCH", 1)
    started = mining_start(user=owner, dataset=seeds, corpus=corpus, enqueue=False)
    calls = []

    def cancel_after_first(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            Run.objects.filter(pk=started.pk).update(cancel_requested=True)
        return original(*args, **kwargs)

    from annotate.mining.services import mining

    original = mining._add_candidates
    monkeypatch.setattr(mining, "_add_candidates", cancel_after_first)
    assert execute(started).state == RunState.CANCELLED
    # s1's batch was written before the stop; s2 was never mined (a new run would add it).
    assert Reference.objects.filter(origin="parroted").count() == 1


def test_deleting_the_dataset_stops_its_run(owner, seeds, corpus):
    started = mining_start(user=owner, dataset=seeds, corpus=corpus, enqueue=False)
    dataset_delete(dataset=seeds)
    assert Run.objects.get(pk=started.pk).state == RunState.CANCELLED


def test_a_run_whose_dataset_went_meanwhile_fails_once_saying_so(owner, seeds, corpus, monkeypatch):
    # The dataset is deleted while a batch is being mined. The run used to fail on a foreign
    # key (its candidates' items were gone), then "succeed" on its retry, having mined nothing.
    started = mining_start(user=owner, dataset=seeds, corpus=corpus, enqueue=False)
    from annotate.mining.services import mining

    original = mining._add_candidates

    def dataset_gone_meanwhile(dataset_id, plans):
        Dataset.objects.filter(pk=seeds.pk).delete()
        return original(dataset_id, plans)

    monkeypatch.setattr(mining, "_add_candidates", dataset_gone_meanwhile)
    ended = execute(started)
    assert (ended.state, ended.attempt, ended.refused) == (RunState.FAILED, 1, True)
    assert ended.reason == "The dataset was deleted while this run was under way."


def test_a_corpus_with_bad_rows_is_refused_with_its_lines(owner, media):
    with pytest.raises(CorpusInvalid, match="4 bad rows"):
        index_corpus(owner, path=DATA / "mining_bad_corpus.jsonl")
    corpus = Corpus.objects.get()
    assert corpus.status == CorpusStatus.FAILED and corpus.bad_rows == 4
    message = "not valid JSON (Expecting value at column 31)"
    assert corpus.problems[0] == {"line": 2, "field": "", "message": message}


def test_bad_rows_can_be_skipped(owner, media):
    corpus = index_corpus(owner, path=DATA / "mining_bad_corpus.jsonl", skip_bad_rows=True)
    assert (corpus.status, corpus.rows, corpus.bad_rows) == (CorpusStatus.READY, 2, 4)
    assert len(corpus.problems) == 4


def test_the_index_is_in_storage_and_fetched_from_remote_storage(owner, media, settings, tmp_path):
    local = index_corpus(owner)
    assert local.index_path.startswith(f"corpora/{local.pk}/index-")
    assert corpus_index_dir(local) == media / local.index_path
    # Storage without local paths (object storage in production): copied once into var/cache.
    in_memory = {"BACKEND": "django.core.files.storage.InMemoryStorage"}
    settings.STORAGES = {**settings.STORAGES, "default": in_memory}
    settings.VAR_DIR = tmp_path / "var"
    remote = index_corpus(owner, name="remote")
    folder = corpus_index_dir(remote)
    assert folder == tmp_path / "var" / "cache" / remote.index_path
    assert corpus_index_dir(remote) == folder  # the second time from the cache
    with CorpusIndex(folder) as index:
        assert index.row(index.search(message="pizza", response="", k=1)[0].doc).line == 7
