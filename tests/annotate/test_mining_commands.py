"""`manage.py corpus_add PATH` (staff, large corpora) and `manage.py mine`."""

import gzip
import io

import pytest
from django.core.management import CommandError, call_command

from annotate.datasets.models import Reference
from annotate.mining.models import Corpus
from tests.conftest import DATA

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_corpus_add_indexes_a_gzip_file_in_place_and_shares_it(owner, media, tmp_path):
    path = tmp_path / "big.jsonl.gz"
    path.write_bytes(gzip.compress((DATA / "mining_corpus.jsonl").read_bytes()))
    out, _ = run("corpus_add", str(path), "--owner", "owner", "--name", "Big")
    corpus = Corpus.objects.get()
    assert f"Corpus {corpus.pk} (Big): 10 triples." in out
    assert (corpus.shared, corpus.file.name, corpus.source) == (True, "", str(path))


def test_corpus_add_lists_bad_rows_fails_and_leaves_no_corpus(owner, media):
    err = io.StringIO()
    with pytest.raises(CommandError, match="not indexed, nothing added: 4 bad rows"):
        call_command(
            "corpus_add", str(DATA / "mining_bad_corpus.jsonl"), "--owner", "owner", stderr=err
        )
    assert "mining_bad_corpus.jsonl: line 3: must be a non-empty string" in err.getvalue()
    # Its problems were printed: a "failed" row in every researcher's list would be litter.
    assert not Corpus.objects.exists()


def test_corpus_add_interrupted_leaves_no_corpus(owner, media, monkeypatch):
    from annotate.mining.management.commands import corpus_add

    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(corpus_add, "corpus_build_index", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run("corpus_add", str(DATA / "mining_corpus.jsonl"), "--owner", "owner")
    assert not Corpus.objects.exists()


def test_corpus_add_refuses_a_missing_file_or_user(owner, media):
    with pytest.raises(CommandError, match="no such file"):
        run("corpus_add", "/nonexistent.jsonl", "--owner", "owner")
    with pytest.raises(CommandError, match="^--owner: no user 'nobody'.$"):
        run("corpus_add", str(DATA / "mining_corpus.jsonl"), "--owner", "nobody")


def test_corpus_add_says_a_directory_is_a_directory(owner, media, tmp_path):
    with pytest.raises(CommandError, match=r"is a directory, not a file\.$"):
        run("corpus_add", str(tmp_path), "--owner", "owner")
    assert not Corpus.objects.exists()


def test_mine_runs_in_this_process(seeds, corpus):
    out, _ = run("mine", "seeds", "--corpus", str(corpus.pk), "--k", "1")
    assert "succeeded" in out
    assert Reference.objects.filter(origin="mined").count() == 2
    with pytest.raises(CommandError, match="No such dataset"):
        run("mine", "nope", "--corpus", str(corpus.pk))
