"""ΔBLEU (and ΔNIST) corrected for the noise of the ratings behind the weights, with intervals.

The rater model is :mod:`.rater_model`'s.

**The estimate** (:func:`rater_estimate`). Two parts, each chosen so that a system whose outputs
copy the truly good references (its choice follows the truth, not the ratings) is not
penalised:

* numerators keep the released weights: each is an unbiased estimate of its reference's true
  weight, and most matched n-grams of order ≥ 2 sit in one reference, where the statistic is
  linear in it (shrinking them toward the campaign's mean, the posterior mean, would move a good
  system's matches down by up to half their distance from it);
* each item's denominator max(max_j w_ij, 0), the same for every system, is replaced by its
  posterior mean under the model, E[max_j w_ij | ratings], exact on the grid (the references'
  posteriors are independent, so P(max ≤ t) = Π_j P(w_j ≤ t)).

What bias is left (unigrams found in several references keep a maximum of noisy weights) is
measured by simulation: draw plausible true weights from the posterior, simulate the ratings
such a truth would get (as many per reference as it has), apply the same estimator to them, and
record e = score(truth) − estimate(simulated). The corrected score is the estimate plus the mean
of e; the interval over raters alone (the same items) is the corrected score ± 1.96 SD(e); the
interval over items and raters moves the corrected score, replicate by replicate, by a
simulation's error about the mean error and by how far an item draw (Koehn 2004, the draws of
:func:`.significance.item_count_blocks`) moves the score at that simulation's true weights.
Items are resampled at the simulated true weights, not at the released ones, which carry each
item's rating noise a second time. ``bench/rater_coverage.py`` measures the coverage of both
against known truths.

**Random streams**: items as :func:`.significance.bootstrap_replicates` for ``seed``; the
posterior draws and simulated ratings from ``default_rng([seed, MODEL_STREAM])``, a replicate at
a time, from the ratings alone: every system on one board gets the same draws, so replicates are
paired across systems (:func:`.rank_distribution.rank_stability` stacks them).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .base import Metric, MetricInputError
from .rater_bootstrap import RatingPools, check_profile, weight_of
from .rater_model import (
    LATENT_POINTS,
    OFFSET_SHARE_MAX,
    RaterModel,
    expected_item_max,
    expected_item_max_of_patterns,
    fit_rater_model,
    log_cdfs,
    pattern_codes,
    rating_counts,
)
from .significance import DEFAULT_SEED, item_count_blocks, percentile_bounds
from .weight_profiles import WeightProfile

MODEL_STREAM = 2  # the posterior draws' generator is default_rng([seed, MODEL_STREAM])
DRAW_BLOCK = 64  # replicates whose weights are drawn and summed at once, at the most
# … and at most this many replicate × reference cells (each of a dozen arrays 8 MB at most).
DRAW_CELLS = 1_000_000
# Simulations of the raters a board's interval takes by default: the costly part (each draws and
# scores every rated reference), cycled over the item draws. Enough for the SD the interval over
# raters is built on (within 5% of the truth), not for its 2.5% and 97.5% quantiles, each off by
# about a point of probability at 250 draws.
RATER_SAMPLES = 250
Z_95 = 1.959963984540054  # the standard normal's 97.5% quantile


@dataclass(frozen=True, eq=False)
class BoardDraws:
    """What every system of a board shares: the model, the released weights, each item's
    estimated denominator, and the seed the replicates' draws are taken from."""

    pools: RatingPools
    model: RaterModel
    ref_ptr: np.ndarray  # (n_items + 1,)
    den_weights: np.ndarray  # (n_items,) E[max(max_j w_ij, 0) | ratings]
    seed: int

    @cached_property
    def _layout(self) -> tuple[np.ndarray, ...]:
        """The rated references, their items, rating counts per reference and per level, their
        kinds, and each item's floor (its unrated references' largest fixed weight, or 0)."""
        counts, _, _ = rating_counts(self.pools)
        sizes = counts.sum(axis=1)
        rated = np.flatnonzero(sizes > 0)
        item_of_ref = np.repeat(np.arange(len(self.ref_ptr) - 1), np.diff(self.ref_ptr))
        fixed = np.full(len(self.ref_ptr) - 1, 0.0)
        unrated = np.flatnonzero(sizes == 0)
        np.maximum.at(fixed, item_of_ref[unrated], self.pools.base_weights[unrated])
        kinds = self.pools.kind_codes[rated]
        return rated, item_of_ref[rated], sizes[rated], fixed, counts[rated], kinds

    @cached_property
    def _raters(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """The distinct raters, and for every t the rater (an index into them) of each rated
        reference's t-th rating (0 where it has fewer): empty when the model has no offsets."""
        raters = self.pools.raters
        if raters is None or self.model.rater_sd <= 0:
            return np.empty(0, dtype=np.int64), []
        rated, _, sizes, _, _, _ = self._layout
        who, code = np.unique(raters, return_inverse=True)
        first = self.pools.ptr[rated]
        return who, [np.where(sizes > t, code[np.minimum(first + t, len(code) - 1)], 0)
                     for t in range(int(sizes.max(initial=0)))]  # fmt: skip

    def _panel_offsets(
        self, rng: np.random.Generator, rows: int, n_raters: int
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """A fresh panel's offsets (rows, n_raters), each shared by all of its rater's ratings,
        and each row's own noise SD (rows, 1); None without raters' offsets. Their spread τ is
        drawn from its posterior (a scaled inverse χ² on the raters' number less one): τ is
        measured from a few dozen raters, and τ's estimate alone made the interval too narrow
        where the panel's offsets happened to be close."""
        if not n_raters:
            return None
        model = self.model
        dof = max(n_raters - 1, 1)
        tau2 = model.rater_sd**2 * dof / rng.chisquare(dof, rows)
        tau2 = np.minimum(tau2, (OFFSET_SHARE_MAX * model.sigma) ** 2)
        shared = rng.normal(0.0, 1.0, (rows, n_raters)) * np.sqrt(tau2)[:, None]
        return shared, np.sqrt(model.sigma**2 - tau2)[:, None]

    @cached_property
    def released(self) -> np.ndarray:
        """The released weights: each rated reference's mean rating rescaled (``weight_of``,
        as the web app computes its weights), an unrated one's base weight."""
        out: np.ndarray = self.pools.weights()
        return out

    def _denominators(self, codes: np.ndarray, radix: int) -> np.ndarray:
        """E[max(max_j w_ij, 0) | simulated ratings] per item, each rated reference's simulated
        ratings given as the code of its counts of each level (``codes`` (rows, rated): Σ over
        its ratings of radix ** level, times the kinds, plus its kind)."""
        _, item, _, floors, _, _ = self._layout
        model = self.model
        n_kinds, n_levels = len(model.prior), model.probs.shape[1]
        out = np.empty((len(codes), len(floors)))
        # Few distinct rating patterns at a few ratings per reference: one posterior each.
        found, back = _distinct(codes)
        kinds = found % n_kinds
        digits = found // n_kinds
        counts = np.stack([(digits // radix**c) % radix for c in range(n_levels)], axis=1)
        cdfs = log_cdfs(model.posterior(counts.astype(np.float64), kinds))
        for r in range(len(codes)):
            out[r] = expected_item_max_of_patterns(cdfs, back[r], model.grid_weights, item, floors)
        return out

    def draws(
        self, n_samples: int, block: int
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """Blocks of (first replicate, true weights, simulated released weights, simulated
        denominators): the posterior's draws of a truth, and what the estimator would be given
        had that truth been rated as often as each reference was."""
        rated, _, sizes, _, counts, kinds = self._layout
        model, base = self.model, self.pools.base_weights
        n_kinds, n_levels = len(model.prior), model.probs.shape[1]
        radix = int(sizes.max(initial=0)) + 1
        if float(radix) ** n_levels * n_kinds >= 2.0**62:
            raise MetricInputError(
                f"{radix - 1} ratings of one reference on a scale of {n_levels} levels: too "
                "many to simulate"
            )
        rng = np.random.default_rng([self.seed, MODEL_STREAM])
        _, first, which = np.unique(
            pattern_codes(counts, kinds, n_kinds), return_index=True, return_inverse=True
        )
        which = which.ravel()
        pattern_cdf = np.cumsum(model.posterior(counts[first], kinds[first]), axis=1)
        groups = [np.flatnonzero(which == p) for p in range(len(first))]
        # P(rating > level c | grid point) for c = 0 .. levels-2: a rating is the number of
        # those a uniform draw falls below (each a gather from a table of the grid's size).
        above = [1.0 - np.cumsum(model.probs, axis=1)[:, c] for c in range(n_levels - 1)]
        powers = radix ** np.arange(n_levels, dtype=np.int64)
        lo, hi = float(model.scale_min), float(model.scale_max)
        cuts = np.arange(lo + 0.5, hi, 1.0)
        who, who_of = self._raters
        for start in range(0, n_samples, block):
            rows = min(block, n_samples - start)
            u = rng.random((rows, len(rated)))
            picks = np.empty((rows, len(rated)), dtype=np.intp)
            for p, refs in enumerate(groups):  # inverse cdf of each pattern's posterior
                found = np.searchsorted(pattern_cdf[p], u[:, refs] * pattern_cdf[p, -1])
                picks[:, refs] = np.minimum(found, LATENT_POINTS - 1)
            true_w = np.repeat(base[None, :], rows, axis=0)
            seen_w = true_w.copy()
            true_w[:, rated] = model.grid_weights[picks]
            # As many simulated ratings as it has real, from its drawn quality's levels.
            total = np.zeros((rows, len(rated)))
            codes = np.zeros((rows, len(rated)), dtype=np.int64)
            offsets = self._panel_offsets(rng, rows, len(who))
            for t in range(radix - 1):
                every = bool((sizes > t).all())  # most boards: no fancy indexing
                live = slice(None) if every else np.flatnonzero(sizes > t)
                mine = picks if every else picks[:, live]
                if offsets is None:
                    v = rng.random(mine.shape)
                    level = np.zeros(mine.shape, dtype=np.intp)
                    for table in above:
                        level += v < table[mine]
                else:  # the latent rating itself: quality + rater's offset + own noise
                    shared, own = offsets
                    value = model.latent[mine] + shared[:, who_of[t][live]]
                    value += rng.normal(0.0, 1.0, mine.shape) * own
                    level = np.searchsorted(cuts, value)
                total[:, live] += level
                codes[:, live] += powers[level]
            seen_w[:, rated] = weight_of(lo + total / sizes, lo, hi)
            yield start, true_w, seen_w, self._denominators(codes * n_kinds + kinds, radix)


def _distinct(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` (the inverse in ``codes``' shape), by counting
    when the codes are small (no sort of millions of codes)."""
    top = int(codes.max(initial=0)) + 1
    if top > 1 << 22:
        found, back = np.unique(codes, return_inverse=True)
        return found, back.reshape(codes.shape)
    present = np.bincount(codes.ravel(), minlength=top) > 0
    index = np.cumsum(present) - 1
    return np.flatnonzero(present), index[codes]


def board_draws(
    pools: RatingPools,
    ref_ptr: np.ndarray,
    seed: int = DEFAULT_SEED,
    model: RaterModel | None = None,
) -> BoardDraws:
    """The board's shared part for :func:`rater_estimate`: the model (fitted unless given) and
    each item's estimated denominator. ``ref_ptr``: item i owns references ref_ptr[i]:ref_ptr[i+1]
    (a :class:`WeightProfile`'s). Raises :class:`RaterModelUnavailable` as the fit does."""
    ptr = np.asarray(ref_ptr, dtype=np.int64)
    if ptr[-1] != pools.n_refs:
        raise MetricInputError(f"{pools.n_refs} rating pools for {int(ptr[-1])} references")
    fitted = model or fit_rater_model(pools)
    shell = BoardDraws(pools, fitted, ptr, np.zeros(len(ptr) - 1), seed)
    _, item, _, floors, counts, kinds = shell._layout
    post = fitted.posterior(counts, kinds)
    den = expected_item_max(log_cdfs(post), fitted.grid_weights, item, floors)
    return BoardDraws(pools, fitted, ptr, den, seed)


@dataclass(frozen=True, eq=False)
class RaterEstimate:
    """One system's score corrected for rater noise, with its intervals (module docstring).

    ``released`` is the score at the released weights (the paper's definition); ``estimate``
    the corrected score; ``rater_bounds`` the 95% interval over raters (same items);
    ``scores`` the replicates over items and raters (paired across a board's systems), whose
    :func:`percentile_bounds` are ``bounds``; ``bias`` = released − estimate."""

    released: float
    estimate: float
    rater_bounds: tuple[float, float]
    bounds: tuple[float, float]
    scores: np.ndarray
    errors: np.ndarray  # score(truth) − estimator(simulated ratings), one per rater simulation

    @property
    def bias(self) -> float:
        """How far the released score sits from the corrected one (released − estimate)."""
        return self.released - self.estimate


def rater_estimate(
    metric: Metric,
    profile: WeightProfile,
    draws: BoardDraws,
    n_samples: int = 1000,
    rater_samples: int = RATER_SAMPLES,
) -> RaterEstimate:
    """The corrected score of one system and its intervals (the module docstring says how).

    Args:
        metric: the metric the profile was built for (ΔBLEU or ΔNIST).
        profile: the system's :class:`WeightProfile` on the board's references.
        draws: the board's :func:`board_draws` (the same for every system: paired replicates).
        n_samples: replicates (≥ 2): the item bootstrap's draws.
        rater_samples: simulations of the raters (≥ 2; at most ``n_samples``): replicate b adds
            simulation b mod ``rater_samples`` to item draw b.

    Returns:
        A :class:`RaterEstimate`; ``estimate`` and ``bounds`` are what a board shows beside the
        released score. :func:`rater_estimates` gives several systems' at the cost of the draws
        once.
    """
    return rater_estimates(metric, [profile], draws, n_samples, rater_samples)[0]


def rater_estimates(
    metric: Metric,
    profiles: Sequence[WeightProfile],
    draws: BoardDraws,
    n_samples: int = 1000,
    rater_samples: int = RATER_SAMPLES,
) -> list[RaterEstimate]:
    """:func:`rater_estimate` of every profile (the board's draws made once for all)."""
    for profile in profiles:
        check_profile(metric, profile)
        if profile.n_refs != draws.pools.n_refs or not np.array_equal(
            profile.ref_ptr, draws.ref_ptr
        ):
            raise MetricInputError("the profile's references are not the board's")
    if n_samples < 2 or rater_samples < 2:
        raise MetricInputError("n_samples and rater_samples must be ≥ 2")
    n_raters = min(rater_samples, n_samples)
    if not profiles:
        return []
    released_w = draws.released
    rows = [p.rows(released_w, den_weights=draws.den_weights) for p in profiles]
    # The item draws, whole (int32: 4 bytes an item a replicate): replicate b resamples the
    # items of simulation b mod n_raters's true weights.
    item_counts = np.vstack(
        [
            c.astype(np.int32)
            for _, c in item_count_blocks(profiles[0].n_items, n_samples, draws.seed)
        ]
    )
    errors = np.empty((len(profiles), n_raters))
    truths = np.empty((len(profiles), n_raters))
    resampled = np.empty((len(profiles), n_samples))
    # Blocks of replicates as the profiles sum them (one replicate a call costs its overhead
    # 1,000 times over), at most DRAW_BLOCK: a few (rows × references) arrays at a time.
    cells = DRAW_CELLS // max(draws.pools.n_refs, 1)
    block = max(1, min([n_raters, DRAW_BLOCK, cells] + [p.block_rows() for p in profiles]))
    ones = np.ones((block, profiles[0].n_items))
    for start, true_w, seen_w, den in draws.draws(n_raters, block):
        c, stop = ones[: len(true_w)], start + len(true_w)
        for s, profile in enumerate(profiles):
            truths[s, start:stop] = metric.scores_from_stats(profile.summed(true_w, c))
            seen = metric.scores_from_stats(profile.summed(seen_w, c, den_weights=den))
            errors[s, start:stop] = truths[s, start:stop] - seen
            for b in range(start, n_samples, n_raters):  # item draws b, b + n_raters, …
                upto = min(b + stop - start, n_samples)
                counts = item_counts[b:upto]
                summed = profile.summed(true_w[: len(counts)], counts)
                resampled[s, b:upto] = metric.scores_from_stats(summed)
    low, high = metric.score_range
    out = []
    for s, profile in enumerate(profiles):
        point = float(metric.scores_from_stats(rows[s].sum(axis=0)))
        released = float(metric.scores_from_stats(profile.rows(released_w).sum(axis=0)))
        corrected = point + errors[s].mean()
        # Replicate b: the corrected score, moved by simulation r = b mod n_raters's error
        # about the mean error (raters), and by how far item draw b moves the score at that
        # simulation's true weights (items). Items at true weights, not at the released ones:
        # resampling items scored at noisy weights counts each item's rating noise a second
        # time, on top of the simulated errors (98–99% coverage in four cells of the benchmark).
        r = np.arange(n_samples) % n_raters
        moved = corrected + (errors[s][r] - errors[s].mean()) + (resampled[s] - truths[s][r])
        scores = np.clip(moved, low, high)
        # A normal interval from the simulations' spread: the 2.5% and 97.5% quantiles of a
        # few hundred simulations are each off by about a percentage point of probability,
        # which cost the percentile interval one to two points of coverage in the benchmark.
        half = Z_95 * float(errors[s].std(ddof=1))
        out.append(
            RaterEstimate(
                released,
                float(np.clip(corrected, low, high)),
                (float(max(corrected - half, low)), float(min(corrected + half, high))),
                percentile_bounds(scores),
                scores,
                errors[s],
            )
        )
    return out
