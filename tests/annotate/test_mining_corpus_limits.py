"""A corpus that is a bomb — a gzip of a 1 GiB line, a ratio of 1000:1 — is refused by name
at upload (API 413, a form error), by `corpus_add` and by the indexing run, in little memory."""

import gzip
import io
import time
import tracemalloc

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from annotate.mining.models import Corpus
from annotate.mining.services import corpora
from annotate.mining.services.corpora import CorpusInvalid, corpus_build_index, corpus_create
from core.runs.models import Run
from tests.bombs import GIB, MIB, gzip_bomb
from tests.conftest import DATA
from tests.runs_kit import execute

pytestmark = pytest.mark.django_db
LINE_LIMIT = "UPLOAD_MAX_LINE_BYTES = 1,048,576"


@pytest.fixture(scope="module")
def bomb():
    return gzip_bomb(GIB)  # one line of 1 GiB of zeros, 1 MB on disk


def test_indexing_refuses_a_one_gigabyte_line_early_and_records_why(owner, media, bomb):
    corpus = corpus_create(owner=owner, name="bomb", fmt="jsonl", source="bomb.jsonl.gz")
    tracemalloc.start()
    started = time.perf_counter()
    with pytest.raises(CorpusInvalid, match=LINE_LIMIT):
        corpus_build_index(corpus=corpus, raw=io.BytesIO(bomb))
    seconds, peak = time.perf_counter() - started, tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    corpus.refresh_from_db()
    assert corpus.status == "failed" and seconds < 1 and peak < 16 * MIB


def test_the_api_answers_413_naming_the_limit_and_keeps_nothing(owner, media, bomb, client_for):
    file = SimpleUploadedFile("bomb.jsonl.gz", bomb)
    response = client_for(owner).post("/api/v1/corpora/", {"name": "B", "file": file})
    assert response.status_code == 413
    assert response.json()["limit"] == "UPLOAD_MAX_LINE_BYTES"
    assert response.json()["value"] == 1024 * 1024 and LINE_LIMIT in response.json()["detail"]
    assert not Corpus.objects.exists() and not list(media.rglob("*.gz"))


def test_the_page_shows_the_limit_on_the_file_field(owner, media, bomb, client_for):
    file = SimpleUploadedFile("bomb.jsonl.gz", bomb)
    response = client_for(owner).post("/corpora/", {"name": "B", "file": file, "language": "en"})
    assert response.status_code == 200
    assert LINE_LIMIT in str(response.context["form"].errors["file"])
    assert not Corpus.objects.exists()


def test_a_ratio_bomb_of_short_lines_is_refused_at_upload(owner, media, client_for):
    line = b'{"message": "m", "response": "r"}\n'
    bomb = gzip_bomb(GIB, piece=line * (MIB // len(line)))
    file = SimpleUploadedFile("bomb.jsonl.gz", bomb)
    response = client_for(owner).post("/api/v1/corpora/", {"name": "B", "file": file})
    assert response.status_code == 413 and response.json()["limit"] == "ARCHIVE_MAX_RATIO"


def test_corpus_add_names_the_limit(owner, media, bomb, tmp_path):
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(bomb)
    with pytest.raises(CommandError, match=LINE_LIMIT):
        call_command("corpus_add", str(path), "--owner", "owner", stdout=io.StringIO())
    assert not Corpus.objects.exists()  # the command said why; it keeps no failed corpus


def test_what_the_upload_check_does_not_reach_the_run_refuses(
    owner, media, client_for, monkeypatch, settings
):
    monkeypatch.setattr(corpora, "PREFLIGHT_BYTES", 1000)
    settings.UPLOAD_MAX_LINE_BYTES = 5000
    good = (DATA / "mining_corpus.jsonl").read_bytes() * 100  # past the first read of 64 KiB
    late = gzip.compress(good + b'{"message": "' + b"m" * 6000 + b'"}\n')
    file = SimpleUploadedFile("late.jsonl.gz", late)
    response = client_for(owner).post("/api/v1/corpora/", {"name": "L", "file": file})
    assert response.status_code == 202
    indexing = execute(Run.objects.get(kind="corpus-index"))
    assert indexing.state == "failed" and "UPLOAD_MAX_LINE_BYTES = 5,000" in indexing.reason
    assert indexing.refused and indexing.attempt == 1  # a bad file is not tried again
    assert Corpus.objects.get().status == "failed"


def test_a_damaged_gzip_is_a_400(owner, media, client_for):
    data = gzip.compress((DATA / "mining_corpus.jsonl").read_bytes())
    file = SimpleUploadedFile("cut.jsonl.gz", data[: len(data) // 2])
    response = client_for(owner).post("/api/v1/corpora/", {"name": "C", "file": file})
    assert response.status_code == 400 and "damaged" in response.json()[0]
