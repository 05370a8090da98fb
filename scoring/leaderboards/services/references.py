"""A leaderboard's references prepared for its metrics, and the per-item statistics files.

The prepared references are built once per release, split and metric configuration and stored
for every worker (default_storage, which may be S3). Each machine copies the file once into a
local cache folder and its worker processes memory-map it: they share its pages instead of each
holding a copy, and a chunk of items reads only its own part of the index.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.core.files.base import ContentFile, File
from django.core.files.storage import default_storage

from core.bounded_cache import BoundedCache
from core.lines import file_lines
from scoring.leaderboards.models import Leaderboard, Submission
from scoring.leaderboards.selectors.leaderboards import leaderboard_metric, release_scoring_items
from scoring.leaderboards.submission_files import submission_slice
from scoring.metrics import (
    IndexFile,
    Metric,
    MetricInputError,
    WeightProfile,
    concat_profiles,
    load_index,
    prepared_for,
    stats_slice,
    weight_profile,
    write_index,
)
from scoring.metrics.api import index_nrefs
from scoring.metrics.index import INDEX_FORMAT_VERSION
from scoring.metrics.refset import RefSet

log = logging.getLogger(__name__)

_INDEX_CACHE: BoundedCache[PreparedReferences] = BoundedCache(8)


@dataclass(frozen=True)
class PreparedReferences:
    """A metric with a leaderboard's references prepared for it, the items' ids in order and
    the references themselves (a weighted metric's chunk profiles its statistics from them)."""

    metric: Metric
    prepared: Any
    nrefs: int | str
    item_ids: list[str]
    refs: RefSet


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


def _cache_path(storage_name: str) -> Path:
    # One folder per machine: every worker process maps the same file, and the OS page cache
    # holds its pages once for all of them.
    folder = Path(settings.VAR_DIR) / "cache" / "indexes"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / Path(storage_name).name


def _load_cached(local: Path) -> IndexFile | None:
    """The index of the local cache file, or None (missing, or damaged: then removed)."""
    if not local.exists():
        return None
    try:
        return load_index(local)
    except MetricInputError:
        log.warning("index cache file %s is damaged; fetching or building it again", local)
        local.unlink(missing_ok=True)
        return None


def _fetch(storage_name: str, local: Path) -> IndexFile | None:
    """Copy the stored index into the local cache (temporary file, then an atomic rename, so
    a concurrent worker never maps a half-copied file) and load it; None if it is damaged."""
    fd, tmp = tempfile.mkstemp(dir=local.parent, prefix=f".{local.name}.", suffix=".tmp")
    try:
        with default_storage.open(storage_name, "rb") as stored, os.fdopen(fd, "wb") as out:
            shutil.copyfileobj(stored, out, length=1 << 20)
        os.replace(tmp, local)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return _load_cached(local)


def _build(
    leaderboard: Leaderboard, metric: Metric, storage_name: str, local: Path, damaged: bool
) -> IndexFile:
    items = [
        ref
        for _, ref in release_scoring_items(release=leaderboard.release, split=leaderboard.split)
    ]
    write_index(local, metric, items)  # a range of items at a time: bounded memory
    if default_storage.exists(storage_name):
        if not damaged:
            return load_index(local)  # another worker stored it first: the same content
        default_storage.delete(storage_name)
    with local.open("rb") as handle:
        default_storage.save(storage_name, File(handle))
    return load_index(local)


def reference_index(leaderboard: Leaderboard, name: str) -> PreparedReferences:
    """The metric, its prepared references and nrefs: built once per release, split and
    configuration, kept in storage for every worker, in a memory-mapped file per machine and
    in this process's memory."""
    metric = leaderboard_metric(leaderboard, name)
    storage_name = _index_name(leaderboard, metric)
    if storage_name in _INDEX_CACHE:
        return _INDEX_CACHE[storage_name]
    if name != leaderboard.primary_metric:
        # One BLEU-family index serves ΔBLEU, BLEU, sBLEU and BLEU-SBP alike when tokenizer,
        # case and order allow: tokenizing a million references once, not four times.
        primary = reference_index(leaderboard, leaderboard.primary_metric)
        if metric.accepts_prepared(primary.prepared):
            shared = PreparedReferences(
                metric, primary.prepared, primary.nrefs, primary.item_ids, primary.refs
            )
            return _INDEX_CACHE.remember(storage_name, shared)
    local = _cache_path(storage_name)
    index = _load_cached(local)
    stored = index is None and default_storage.exists(storage_name)
    if stored:
        index = _fetch(storage_name, local)
    if index is None:  # a damaged stored file is replaced, a missing one written
        index = _build(leaderboard, metric, storage_name, local, damaged=stored)
    entry = PreparedReferences(
        metric, prepared_for(metric, index), index_nrefs(index), list(index.item_ids), index.refs
    )
    return _INDEX_CACHE.remember(storage_name, entry)


def leaderboard_prepare(*, leaderboard_id: int) -> list[str]:
    """Build (or find) the reference index of every metric of a leaderboard."""
    leaderboard = Leaderboard.objects.select_related("release").filter(pk=leaderboard_id).first()
    if leaderboard is None:
        return []  # deleted before a worker took its task: nothing to build
    for name in leaderboard.metrics:
        reference_index(leaderboard, name)
    return leaderboard.metrics


# Items tokenized and scored at once inside a chunk: about 10 MB of token lists per 1,000 items
# with 16 references, so slices of 5,000 keep a worker's working set near 50 MB.
STREAM_ITEMS = 5_000


@dataclass(frozen=True)
class Chunk:
    """A chunk's statistics rows and, for a weighted metric, their weight profile."""

    stats: np.ndarray
    profile: WeightProfile | None


def submission_chunk(
    submission: Submission, references: PreparedReferences, start: int, stop: int
) -> Chunk:
    """Rows start:stop of the submission's statistics (and a weighted metric's weight profile),
    reading only those lines of its file and preparing only those items' references: a
    chunk's cost, whatever the board's size."""
    with submission.file.open("rb") as handle:
        hyps = submission_slice(
            file_lines(handle), references.item_ids, start, stop, submission.format or "text"
        )
    n_items, metric, prepared = len(references.item_ids), references.metric, references.prepared
    # Streamed: a slice of items at a time, so tokenized references never grow with the chunk.
    bounds = [(a, min(a + STREAM_ITEMS, stop)) for a in range(start, stop, STREAM_ITEMS)]
    if metric.uses_weights and bounds:
        # A weighted metric's slices are profiled against their own references and the board's
        # index (for ΔNIST, its information weights are the whole test set's); the profile at
        # the release's weights gives the statistics themselves, bit for bit (tested).
        parts = [
            weight_profile(
                metric,
                hyps[a - start : b - start],
                references.refs.part(a, b),
                metric.prepared_slice(prepared, a, b),
            )
            for a, b in bounds
        ]
        profile = concat_profiles(parts)
        return Chunk(profile.rows(references.refs.part(start, stop).weights), profile)
    rows = [
        stats_slice(metric, hyps[a - start : b - start], prepared, a, b, n_items) for a, b in bounds
    ]
    stats = (
        np.concatenate(rows) if rows else stats_slice(metric, [], prepared, start, stop, n_items)
    )
    return Chunk(stats, None)


def chunk_bounds(n_items: int, size: int | None = None) -> list[tuple[int, int]]:
    """Item ranges of the chunks: up to SCORING_CHUNK_ITEMS a submission is one task (2,000
    lines take well under a second); above it, chunks spread the work over the workers."""
    size = size or settings.SCORING_CHUNK_ITEMS
    return [(start, min(start + size, n_items)) for start in range(0, n_items, size)] or [(0, 0)]


def _replace_stored(name: str, content: File) -> str:
    """Store `content` under `name`, over what a superseded attempt left there."""
    if default_storage.exists(name):
        default_storage.delete(name)
    return default_storage.save(name, content)


def save_matrix(name: str, matrix: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, matrix, allow_pickle=False)
    return _replace_stored(name, ContentFile(buffer.getvalue()))


def save_profile(name: str, profile: WeightProfile) -> str:
    """Store a weight profile (the library's array file: no pickle, with a checksum)."""
    Path(settings.RUNS_TMP_DIR).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=settings.RUNS_TMP_DIR) as folder:
        local = Path(folder) / "profile"
        profile.save(local)
        with local.open("rb") as handle:
            return _replace_stored(name, File(handle))
