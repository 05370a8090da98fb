"""How much a board depends on who rated its references: the ratings behind its weights, and
each entry's rank over the bootstrap (services/uncertainty.py explains the replicates)."""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from django.core.cache import cache

from annotate.datasets.models import Origin
from annotate.releases.models import ReleaseReference, WeightVariant, weight_field
from core.bounded_cache import BoundedCache
from scoring.leaderboards.models import Leaderboard, Score, Submission
from scoring.leaderboards.selectors.stored import load_matrix
from scoring.metrics import (
    BoardDraws,
    RankStability,
    RaterModelUnavailable,
    RatingPools,
    board_draws,
    get_entry,
    rank_stability,
)

_BOARDS: BoundedCache[BoardReferences] = BoundedCache(8)
# A reference's origin as the rater model's kind: original replies, mined, parroted and written
# candidates each have a distribution of quality of their own.
ORIGIN_KINDS = {origin: k for k, origin in enumerate(Origin.values)}
_DRAWS: BoundedCache[BoardDraws | str] = BoundedCache(8)
CACHE_SECONDS = 7 * 24 * 3600
METHOD = (
    "1,000 bootstrap replicates with the interval's item draws; for a weighted metric on a "
    "release with individual ratings also the raters' noise: a model of the ratings (each "
    "reference's quality, one rater noise for the release) gives plausible true weights, the "
    "ratings they would get, and the error of the corrected score on them, added replicate by "
    "replicate (scoring.metrics.rater_estimate)"
)
Z_UNAVAILABLE = (
    "the weights are per-rater z-normalised ratings: the rater model covers weights from the raw "
    "ratings' mean only"
)


@dataclass(frozen=True)
class BoardReferences:
    """A board's references in the order it scores them (that of its reference index): their
    weights, the ratings behind them (flat: reference j's are values[ptr[j]:ptr[j + 1]]), the
    live references they were frozen from (-1: none), their kinds (`ORIGIN_KINDS`), and who
    gave each rating (the release's rater numbers, beside ``values``; None when a release does
    not say for every rating: it was frozen before releases kept them)."""

    weights: np.ndarray
    values: np.ndarray
    ptr: np.ndarray
    source_ids: np.ndarray
    scale: tuple[int, int]
    kinds: np.ndarray
    raters: np.ndarray | None = None

    @property
    def pools(self) -> RatingPools | None:
        """The ratings as the library models them; None when the release carries none (its
        weights are fixed)."""
        if not len(self.values):
            return None
        lo, hi = map(float, self.scale)
        return RatingPools(self.values, self.ptr, self.weights, lo, hi, self.kinds, self.raters)


def _board_key(leaderboard: Leaderboard) -> str:
    release = leaderboard.release
    published = release.published_at.isoformat() if release.published_at else "draft"
    return f"{release.pk}:{published}:{release.snapshot_checksum}:{leaderboard.split}"


def _scale(leaderboard: Leaderboard) -> tuple[int, int]:
    info = leaderboard.release.build_info or {}
    source = info.get("campaign") or info.get("dataset") or {}
    return int(source.get("scale_min", 1)), int(source.get("scale_max", 5))


def _scored_rows(
    leaderboard: Leaderboard,
) -> Iterator[list[tuple[float, list, int | None, str, list]]]:
    """Each scored item's references with a weight, as (weight, ratings, live id, origin, who
    gave the ratings), in release order: `release_scoring_items`'s rule (an item counts when a
    reference's weight is positive), read as plain rows a batch at a time (a board can hold
    millions)."""
    field = weight_field(leaderboard.release.weight_variant)
    rows = (
        ReleaseReference.objects.filter(
            release=leaderboard.release,
            item__split=leaderboard.split,
            **{f"{field}__isnull": False},
        )
        .order_by("item__position", "position")
        .values_list(
            "item_id", field, "rating_values", "source_reference_id", "origin", "rating_raters"
        )
    )
    item: int | None = None
    refs: list[tuple[float, list, int | None, str, list]] = []
    for item_id, weight, ratings, source, origin, raters in rows.iterator(chunk_size=20_000):
        if item_id != item:
            if any(ref[0] > 0 for ref in refs):
                yield refs
            item, refs = item_id, []
        refs.append((float(weight), ratings or [], source, origin, raters or []))
    if any(ref[0] > 0 for ref in refs):
        yield refs


def board_references(*, leaderboard: Leaderboard) -> BoardReferences:
    """The board's references (kept per process: a published release never changes)."""
    key = _board_key(leaderboard)
    if key in _BOARDS:
        return _BOARDS[key]
    weights, sizes, sources, kinds = array("d"), array("q"), array("q"), array("q")
    values, raters = array("d"), array("q")
    every_rater_known = True
    for refs in _scored_rows(leaderboard):
        for weight, ratings, source, origin, who in refs:
            weights.append(weight)
            sizes.append(len(ratings))
            values.extend(float(v) for v in ratings)
            sources.append(-1 if source is None else source)
            kinds.append(ORIGIN_KINDS.get(origin, 0))
            every_rater_known = every_rater_known and len(who) == len(ratings)
            if every_rater_known:
                raters.extend(int(r) for r in who)
    ptr = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(np.frombuffer(sizes, dtype=np.int64), out=ptr[1:])
    found = BoardReferences(
        np.frombuffer(weights, dtype=np.float64).copy(),
        np.frombuffer(values, dtype=np.float64).copy(),
        ptr,
        np.frombuffer(sources, dtype=np.int64).copy(),
        _scale(leaderboard),
        np.frombuffer(kinds, dtype=np.int64).copy(),
        np.frombuffer(raters, dtype=np.int64).copy() if every_rater_known else None,
    )
    return _BOARDS.remember(key, found)


def board_rating_pools(*, leaderboard: Leaderboard) -> RatingPools | None:
    """The ratings behind each reference's weight, in the board's order (None: fixed)."""
    return board_references(leaderboard=leaderboard).pools


def board_rater_draws(*, leaderboard: Leaderboard, ref_ptr: np.ndarray) -> BoardDraws | str:
    """The board's rater model and the draws every entry's corrected score shares (kept per
    process, like the references), or why there are none (in words for the board). Only for a
    board whose release carries individual ratings (`board_rating_pools`)."""
    key = f"{_board_key(leaderboard)}:{len(ref_ptr)}"
    if key in _DRAWS:
        return _DRAWS[key]
    pools = board_rating_pools(leaderboard=leaderboard)
    if pools is None:
        raise ValueError("the release carries no individual ratings")
    found: BoardDraws | str
    if leaderboard.release.weight_variant == WeightVariant.Z:
        found = Z_UNAVAILABLE
    else:
        try:
            found = board_draws(pools, ref_ptr)
        except RaterModelUnavailable as exc:
            found = str(exc)
    return _DRAWS.remember(key, found)


@dataclass(frozen=True)
class BoardStability:
    """The ranked entries' rank distributions (rows in board order) and whether their
    replicates include the raters."""

    stability: RankStability
    with_raters: bool


def _cache_key(leaderboard: Leaderboard, scores: list[Score]) -> str:
    state = ",".join(f"{s.pk}:{s.replicates_file}" for s in scores)
    return f"board-stability:{leaderboard.pk}:{hashlib.sha256(state.encode()).hexdigest()[:32]}"


def view_rank_stability(
    *, leaderboard: Leaderboard, ranked: list[tuple[Submission, Score]]
) -> BoardStability | None:
    """Each ranked entry's rank over the paired replicates of this view of the board (read
    from the stored replicates: nothing is resampled here); None when an entry has none (it
    was scored before replicates were kept, or the view has fewer than two entries)."""
    scores = [score for _, score in ranked]
    if len(scores) < 2 or any(not s.replicates_file for s in scores):
        return None
    key = _cache_key(leaderboard, scores)
    found = cache.get(key)
    if found is not None:
        return found
    replicates = np.stack([load_matrix(s.replicates_file) for s in scores])
    higher = get_entry(leaderboard.primary_metric).higher_is_better
    result = BoardStability(
        rank_stability(replicates, higher_is_better=higher),
        with_raters=all(s.rater_ci_low is not None for s in scores),
    )
    cache.set(key, result, CACHE_SECONDS)
    return result
