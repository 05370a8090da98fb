"""A leaderboard's references prepared for its metrics, and the per-item statistics files.

The prepared references are built once per release, split and metric configuration, stored for
every worker and kept in each process's memory; scoring a chunk of items reads them from here.
"""

from __future__ import annotations

import hashlib
import io
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from scoring.metrics import (
    IndexFile,
    Metric,
    build_index,
    get_metric,
    load_index,
    prepared_for,
    save_index,
    stats_slice,
)
from scoring.metrics.api import index_nrefs
from scoring.metrics.index import INDEX_FORMAT_VERSION
from scoring.models import Leaderboard, Submission
from scoring.selectors.leaderboards import release_scoring_items
from scoring.submission_files import parse_submission

_INDEX_CACHE: dict[str, PreparedReferences] = {}
_INDEX_CACHE_SIZE = 8


@dataclass(frozen=True)
class PreparedReferences:
    """A metric with a leaderboard's references prepared for it, and the items' ids in order."""

    metric: Metric
    prepared: Any
    nrefs: int | str
    item_ids: list[str]


def leaderboard_metric(leaderboard: Leaderboard, name: str) -> Metric:
    options = leaderboard.metric_options if name == leaderboard.primary_metric else {}
    return get_metric(name, **options)


def _index_name(leaderboard: Leaderboard, metric: Metric) -> str:
    # A published release never changes, so (id, publication time, checksum) names its content:
    # an id reused after a rollback or in a new database cannot pick up another release's index.
    release = leaderboard.release
    published = release.published_at.isoformat() if release.published_at else "draft"
    # The file format's version too: a file of an older format is never read, only rebuilt.
    key = (
        f"{release.pk}:{published}:{release.snapshot_checksum}:{leaderboard.split}:"
        f"{metric.name}:{sorted(metric.opts.items())}:v{INDEX_FORMAT_VERSION}"
    )
    return f"indexes/{hashlib.sha256(key.encode()).hexdigest()[:24]}.idx"


def reference_index(leaderboard: Leaderboard, name: str) -> PreparedReferences:
    """The metric, its prepared references and nrefs: built once per release, split and
    configuration, kept in storage for every worker and in this process's memory."""
    metric = leaderboard_metric(leaderboard, name)
    storage_name = _index_name(leaderboard, metric)
    if storage_name in _INDEX_CACHE:
        return _INDEX_CACHE[storage_name]
    if name != leaderboard.primary_metric:
        # One BLEU-family index serves ΔBLEU, BLEU, sBLEU and BLEU-SBP alike when tokenizer,
        # case and order allow: tokenizing a million references once, not four times.
        primary = reference_index(leaderboard, leaderboard.primary_metric)
        if metric.accepts_prepared(primary.prepared):
            shared = PreparedReferences(metric, primary.prepared, primary.nrefs, primary.item_ids)
            return _remember(storage_name, shared)
    with tempfile.TemporaryDirectory() as folder:
        local = Path(folder) / "index"
        if default_storage.exists(storage_name):
            with default_storage.open(storage_name, "rb") as stored:
                local.write_bytes(stored.read())
            index: IndexFile = load_index(local)
        else:
            items = [ref for _, ref in release_scoring_items(
                release=leaderboard.release, split=leaderboard.split
            )]  # fmt: skip
            index = build_index(metric, items)
            save_index(local, index)
            if not default_storage.exists(storage_name):  # another worker may have won
                default_storage.save(storage_name, ContentFile(local.read_bytes()))
    entry = PreparedReferences(
        metric, prepared_for(metric, index), index_nrefs(index), list(index.item_ids)
    )
    return _remember(storage_name, entry)


def _remember(storage_name: str, entry: PreparedReferences) -> PreparedReferences:
    if len(_INDEX_CACHE) >= _INDEX_CACHE_SIZE:
        _INDEX_CACHE.pop(next(iter(_INDEX_CACHE)))
    _INDEX_CACHE[storage_name] = entry
    return entry


def leaderboard_prepare(*, leaderboard_id: int) -> list[str]:
    """Build (or find) the reference index of every metric of a leaderboard."""
    leaderboard = Leaderboard.objects.select_related("release").get(pk=leaderboard_id)
    for name in leaderboard.metrics:
        reference_index(leaderboard, name)
    return leaderboard.metrics


def submission_hypotheses(submission: Submission, item_ids: list[str]) -> list[str]:
    with submission.file.open("rb") as handle:
        hyps, _ = parse_submission(handle, item_ids, submission.format)
    return hyps


def chunk_bounds(n_items: int, size: int | None = None) -> list[tuple[int, int]]:
    """Item ranges of the chunks: up to SCORING_CHUNK_ITEMS a submission is one task (2,000
    lines take well under a second); above it, chunks spread the work over the workers."""
    size = size or settings.SCORING_CHUNK_ITEMS
    return [(start, min(start + size, n_items)) for start in range(0, n_items, size)] or [(0, 0)]


def chunk_stats(
    metric: Metric, prepared: Any, hyps: list[str], start: int, stop: int
) -> np.ndarray:
    """Rows start:stop of the statistics, identical to those of scoring all items at once, at
    the cost of those items only."""
    return stats_slice(metric, hyps[start:stop], prepared, start, stop, len(hyps))


def save_matrix(name: str, matrix: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, matrix, allow_pickle=False)
    if default_storage.exists(name):
        default_storage.delete(name)
    return default_storage.save(name, ContentFile(buffer.getvalue()))


def load_matrix(name: str) -> np.ndarray:
    with default_storage.open(name, "rb") as handle:
        return np.load(io.BytesIO(handle.read()), allow_pickle=False)
