"""Scored submissions for the leaderboard tests: uploaded, then scored in this process."""

from __future__ import annotations

import pytest

from scoring.leaderboards.services import references as references_service
from tests.runs_kit import upload
from tests.scoring.world_kit import scoring_finished

# Dev items d1, d2, d3, d5 of the default release.
PERFECT = [
    "the cat sat on the mat",
    "it was a great match",
    "see you tomorrow then",
    "i love pizza with cheese",
]
GOOD = ["the cat sat on a mat", "what a great match", "see you then", "i love cheese pizza"]
NONSENSE = ["zebra quantum", "violet engine", "marble lantern", "copper meadow"]
# Test items t1, t2 (hidden references "the hidden answer is here", "another hidden reference").
TEST_PERFECT = ["the hidden answer is here", "another hidden reference"]
TEST_POOR = ["an answer", "a reference"]
# Every reference of the default release's hidden test split: only its owner may see them.
HIDDEN = ["the hidden answer is here", "another hidden reference", "secret text"]


@pytest.fixture(autouse=True)
def _own_storage_and_index_cache(settings, tmp_path):
    # Each test's stored files (indexes, statistics) in a folder of its own, and a cold cache.
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.VAR_DIR = tmp_path / "var"  # the per-machine index cache too
    references_service._INDEX_CACHE.clear()
    yield
    references_service._INDEX_CACHE.clear()


@pytest.fixture
def scored(django_capture_on_commit_callbacks):
    """`scored(board, user, hyps, **fields)`: a finished submission with its scores."""

    def make(board, user, hyps, **fields):
        with django_capture_on_commit_callbacks(execute=False):
            submission = upload(board, user, hyps, **fields)
        return scoring_finished(submission)

    return make
