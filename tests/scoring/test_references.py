"""Reference indexes: stored once, memory-mapped from a per-machine cache, damaged files rebuilt;
a chunk's statistics read only its lines and equal the rows of scoring in one piece."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.files.storage import default_storage

from scoring.leaderboards.services import references as references_service
from scoring.leaderboards.services.references import reference_index, submission_chunk
from scoring.metrics import concat_profiles, entries
from tests.runs_kit import upload

pytestmark = pytest.mark.django_db

HYPS = ["the cat sat on a mat", "what a great match", "", "i love cheese pizza"]


def cache_file(board, name="dbleu"):
    metric = references_service.leaderboard_metric(board, name)
    storage_name = references_service._index_name(board, metric)
    return storage_name, references_service._cache_path(storage_name)


def fresh_process():
    references_service._INDEX_CACHE.clear()  # as a newly started worker process


def test_the_index_is_stored_and_mapped_from_the_machine_cache(make_leaderboard, settings):
    board = make_leaderboard()
    first = reference_index(board, "dbleu")
    storage_name, local = cache_file(board)
    assert default_storage.exists(storage_name)
    assert local.parent == settings.VAR_DIR / "cache" / "indexes" and local.exists()
    fresh_process()
    second = reference_index(board, "dbleu")
    assert second.prepared is not first.prepared
    for refs in (first, second):
        keys = refs.prepared.orders[0].keys
        assert isinstance(keys, np.memmap) and str(keys.filename) == str(local.resolve())
    assert np.array_equal(
        first.metric.stats(HYPS, first.prepared), second.metric.stats(HYPS, second.prepared)
    )


def test_a_damaged_cache_file_is_fetched_again_not_trusted(make_leaderboard):
    board = make_leaderboard()
    expected = reference_index(board, "dbleu")
    scores = expected.metric.stats(HYPS, expected.prepared)
    _, local = cache_file(board)
    data = bytearray(local.read_bytes())
    data[-20] ^= 0xFF
    local.write_bytes(bytes(data[:-7]))
    fresh_process()
    again = reference_index(board, "dbleu")
    assert np.array_equal(again.metric.stats(HYPS, again.prepared), scores)
    assert local.stat().st_size == len(data)


def test_a_damaged_stored_file_is_rebuilt_from_the_release(make_leaderboard):
    board = make_leaderboard()
    expected = reference_index(board, "dbleu")
    scores = expected.metric.stats(HYPS, expected.prepared)
    storage_name, local = cache_file(board)
    local.unlink()
    default_storage.delete(storage_name)
    default_storage.save(storage_name, __import__("io").BytesIO(b"garbage"))
    fresh_process()
    again = reference_index(board, "dbleu")
    assert np.array_equal(again.metric.stats(HYPS, again.prepared), scores)
    with default_storage.open(storage_name, "rb") as stored:
        assert stored.read() == local.read_bytes()


def test_chunks_read_from_the_file_equal_the_rows_of_one_piece(make_leaderboard, other):
    companions = [name for name in entries() if name != "dbleu"]
    board = make_leaderboard(companion_metrics=companions)
    submission = upload(board, other, HYPS, method="m")
    for name in board.metrics:
        refs = reference_index(board, name)
        whole = refs.metric.stats(HYPS, refs.prepared)
        parts = [submission_chunk(submission, refs, a, min(a + 3, 4)) for a in (0, 3)]
        assert np.array_equal(np.concatenate([p.stats for p in parts]), whole), name
        # A weighted metric's chunks carry their weight profile, joined into the whole's.
        if refs.metric.uses_weights:
            joined = concat_profiles([p.profile for p in parts])
            assert np.array_equal(joined.rows(refs.refs.weights), whole), name
        else:
            assert all(p.profile is None for p in parts), name
