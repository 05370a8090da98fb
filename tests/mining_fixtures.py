"""Fixtures for the mining tests: storage in a temporary folder, an indexed corpus, seeds.

Test modules import the fixtures they use (`from tests.mining_fixtures import ...`).
"""

from __future__ import annotations

import pytest

from annotate.mining.models import Corpus
from annotate.mining.services.corpora import corpus_build_index, corpus_create
from tests.conftest import DATA


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def index_corpus(owner, *, name="chat corpus", path=DATA / "mining_corpus.jsonl", **fields):
    corpus = corpus_create(owner=owner, name=name, fmt="jsonl", source=str(path), **fields)
    with path.open("rb") as raw:
        return corpus_build_index(corpus=corpus, raw=raw)


@pytest.fixture
def corpus(media, owner) -> Corpus:
    """tests/data/mining_corpus.jsonl, indexed, owned by `owner`."""
    return index_corpus(owner)


@pytest.fixture
def seeds(make_dataset):
    """A private dataset of `owner` with seeds s1, s2 (dev) and s3 (test)."""
    return make_dataset(slug="seeds", data="mining_seeds.jsonl")
