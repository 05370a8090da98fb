"""Per-item statistics as a function of the reference weights: the weight profile.

ΔBLEU's weights come from a handful of ratings per reference (w = 2(m − lo)/(hi − lo) − 1, the
mean rating m on the scale [lo, hi]), so a score depends on the raters. Asking how much means
scoring again with other weights, which the profile does without tokenizing anything. For
ΔBLEU (Galley et al. 2015, sec. 3, both definitions) and ΔNIST every weighted statistic has one
form. For item i and order n, a *group* g is a distinct n-gram of h_i found in some reference of
item i, and its *rows* are the references r_ij that contain g::

    num_n(i) = Σ_g m_g · max_{j: g ∈ r_ij} (w_ij · a_gj)      den_n(i) = max_j w_ij · base_n(i)

with multipliers m_g and amounts a_gj that do not depend on the weights:

* ΔBLEU ``paper``: m_g = 1 and a_gj = min(#g(h_i), #g(r_ij));
* ΔBLEU ``author-2019``: m_g = min(#g(h_i), M_g), M_g = max_j #g(r_ij) (any weight), a_gj = 1;
* ΔNIST: m_g = Info(g), the whole test set's information weight (Doddington 2002, sec. 3), and
  a_gj = min(#g(h_i), #g(r_ij)).

base_n(i) = |n-grams_n(h_i)|; the length columns (hypothesis and reference lengths) do not
depend on the weights. :meth:`WeightProfile.rows` recomputes the statistics with the metric's
own float operations in its own order, so they equal the metric's bit for bit. An item whose
weights are all ≤ 0 (the metrics refuse it; a resampling can make one) gets the denominator
base_n(i) · max(max_j w_ij, 0) = 0: it adds its (non-positive) numerators and nothing else.

The builder, :func:`weight_profile`, is in :mod:`.weight_profiles_build`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .arrayfile import read_arrays, write_arrays
from .base import MetricInputError
from .version import __version__

PROFILE_FORMAT = "deltableu-weight-profile"
PROFILE_FORMAT_VERSION = 1
# Replicate × reference (or item, or group) cells handled at once by WeightProfile.summed: its
# temporaries are a few arrays of at most that many float64 (32 MB each). Fewer replicates a
# block cost more time: 10 a block take 1.6 times as long as 100.
BLOCK_CELLS = 4_000_000


def compact(values: np.ndarray) -> np.ndarray:
    """``values`` in the smallest unsigned integer dtype that holds them exactly (uint8, 16 or
    32), else as float64 (also when a value is a negative zero, whose sign would be lost)."""
    v = np.asarray(values)
    if v.size == 0:
        return v.astype(np.uint8)
    if v.dtype.kind == "f" and (np.signbit(v).any() or not np.array_equal(v, np.floor(v))):
        return v.astype(np.float64)
    if v.min() >= 0:
        for dtype in (np.uint8, np.uint16, np.uint32):
            if v.max() <= np.iinfo(dtype).max:
                return v.astype(dtype)
    return v.astype(np.float64)


def index_dtype(n: int) -> type[np.signedinteger[Any]]:
    """int32 for indexes below ``n`` when it fits (half the bytes), else int64."""
    return np.int32 if n < 2**31 else np.int64


@dataclass(eq=False)
class Bucket:
    """The groups of one order that have ``size`` rows (see :attr:`ProfileOrder.buckets`)."""

    ref: np.ndarray  # (size, n_groups) intp: row t's reference of each group
    amount: np.ndarray  # (size, n_groups, 1) a_gj
    mult: np.ndarray  # (n_groups, 1) m_g
    item: np.ndarray  # (n_groups,) the group's item


@dataclass(eq=False)
class ProfileOrder:
    """One order's groups, each item's consecutive, and their rows (see the module docstring)."""

    item: np.ndarray  # (n_groups,) int32: the group's item
    mult: np.ndarray  # (n_groups,) m_g (compact: integers where exact, else float64)
    starts: np.ndarray  # (n_groups,) int64: the group's first row
    ref: np.ndarray  # (n_rows,) int32: the row's reference (global index)
    amount: np.ndarray  # (n_rows,) a_gj (compact)

    def values(self, weights: np.ndarray) -> np.ndarray:
        """m_g · max_j (w_j · a_gj) of every group for ``weights`` of shape (n_refs,)."""
        best = np.maximum.reduceat(weights[self.ref] * self.amount, self.starts)
        out: np.ndarray = best * self.mult
        return out

    @cached_property
    def buckets(self) -> list[Bucket]:
        """The groups by number of rows, each size's rows as (size, n_groups) matrices:
        :meth:`summed`'s plan (a max over whole columns instead of ``reduceat``'s short runs,
        several times faster). Made on first use: some 10 bytes a row."""
        sizes = np.diff(np.append(self.starts, len(self.ref)))
        out = []
        for size in np.unique(sizes).tolist():
            groups = np.flatnonzero(sizes == size)
            rows = self.starts[groups][None, :] + np.arange(size)[:, None]
            ref, amount = self.ref[rows].astype(np.intp), self.amount[rows][:, :, None]
            out.append(Bucket(ref, amount, self.mult[groups][:, None], self.item[groups]))
        return out

    def summed(self, weights_t: np.ndarray, counts_t: np.ndarray) -> np.ndarray:
        """Σ_g counts[item_g, b] · m_g · max_j (w_jb · a_gj) for weights ``weights_t``
        (n_refs, b) and counts ``counts_t`` (n_items, b), both replicates last: shape (b,).
        Each group's term is the one :meth:`values` computes, bit for bit."""
        n = weights_t.shape[1]
        total = np.zeros(n)
        if not self.buckets:
            return total
        # Two scratch arrays for every bucket: fresh large arrays would fault in their pages
        # at every step (that doubled the time on 10,000 items).
        cells = max(b.ref.shape[1] for b in self.buckets) * n
        scratch = np.empty(cells), np.empty(cells)
        for b in self.buckets:
            best, term = (a[: b.ref.shape[1] * n].reshape(-1, n) for a in scratch)
            np.take(weights_t, b.ref[0], axis=0, out=best)
            best *= b.amount[0]
            for ref, amount in zip(b.ref[1:], b.amount[1:], strict=True):
                np.take(weights_t, ref, axis=0, out=term)
                term *= amount
                np.maximum(best, term, out=best)
            best *= b.mult
            np.take(counts_t, b.item, axis=0, out=term)
            total += np.einsum("gb,gb->b", best, term)
        return total

    def permuted(self, perm: np.ndarray) -> ProfileOrder:
        """The groups in the order ``perm`` (a permutation of the groups), rows following."""
        sizes = np.diff(np.append(self.starts, len(self.ref)))[perm]
        starts = np.cumsum(sizes) - sizes
        rows = np.repeat(self.starts[perm] - starts, sizes) + np.arange(len(self.ref))
        return ProfileOrder(
            self.item[perm], self.mult[perm], starts, self.ref[rows], self.amount[rows]
        )


@dataclass(eq=False)
class WeightProfile:
    """One system's hypotheses against a reference set, as statistics of the weights.

    ``rows(w)`` are the per-item statistics the metric gives with the reference weights
    replaced by ``w`` (see the module docstring); ``summed`` sums them over bootstrap
    replicates. Column layout: ``num_cols[n-1]`` and ``den_cols[n-1]`` are the statistics
    columns of order n's numerator and denominator, ``fixed_cols`` those of ``fixed``."""

    metric: str  # the registry name of the metric it was built for
    options: dict[str, Any]  # that metric's options
    item_ids: list[str]
    n_stats: int
    num_cols: list[int]
    den_cols: list[int]
    fixed_cols: list[int]
    ref_ptr: np.ndarray  # (n_items + 1,) int64: item i owns references ref_ptr[i]:ref_ptr[i+1]
    ref_weights: np.ndarray  # (n_refs,) float64: the weights the references had at build
    fixed: np.ndarray  # (n_items, len(fixed_cols)) float64: columns independent of weights
    den_base: np.ndarray  # (n_items, N) base_n(i) (compact)
    orders: list[ProfileOrder]

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.item_ids)

    @property
    def n_refs(self) -> int:
        """Number of references (the length of a weight vector)."""
        return int(self.ref_ptr[-1])

    @property
    def nbytes(self) -> int:
        """Bytes held by the profile's arrays."""
        arrays = [self.ref_ptr, self.ref_weights, self.fixed, self.den_base]
        arrays += [getattr(o, f.name) for o in self.orders for f in fields(o)]
        return sum(a.nbytes for a in arrays)

    def layout(self) -> tuple[Any, ...]:
        """What two profiles must share to be joined or compared: metric, options, columns."""
        cols = (self.n_stats, self.num_cols, self.den_cols, self.fixed_cols)
        return (self.metric, self.options, *cols, len(self.orders))

    def den_weights(self, weights: np.ndarray) -> np.ndarray:
        """max(max_j w_ij, 0) per item, for weights of shape (..., n_refs)."""
        top = np.maximum.reduceat(weights, self.ref_ptr[:-1], axis=-1)
        out: np.ndarray = np.maximum(top, 0.0)
        return out

    def checked_weights(self, weights: np.ndarray, ndim: int = 1) -> np.ndarray:
        """``weights`` as float64 of shape (n_refs,) (``ndim`` 1) or (B, n_refs) (``ndim`` 2)."""
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != ndim or w.shape[-1] != self.n_refs:
            raise MetricInputError(
                f"weights of shape {w.shape}: the profile has {self.n_refs} references"
            )
        return w

    def rows(self, weights: np.ndarray, den_weights: np.ndarray | None = None) -> np.ndarray:
        """Per-item statistics ``(n_items, n_stats)`` with the references weighted ``weights``
        (shape (n_refs,)): bit for bit the metric's rows for these hypotheses with those
        weights (same float operations, same order of summation). ``den_weights`` (n_items,)
        replaces each item's max(max_j w_ij, 0) in the denominators (an estimate of it, as
        :mod:`.rater_model` gives)."""
        w = self.checked_weights(weights, 1)
        n = self.n_items
        out = np.zeros((n, self.n_stats))
        out[:, self.fixed_cols] = self.fixed
        if n == 0:
            return out
        den = self.den_weights(w) if den_weights is None else self._checked_den(den_weights, 1)
        out[:, self.den_cols] = self.den_base * den[:, None]
        for col, order in zip(self.num_cols, self.orders, strict=True):
            if len(order.starts):
                out[:, col] = np.bincount(order.item, weights=order.values(w), minlength=n)
        return out

    def block_rows(self) -> int:
        """Replicates :meth:`summed` handles at once: :data:`BLOCK_CELLS` cells of the widest
        of the references, the items and an order's groups."""
        widest = max([self.n_refs, self.n_items, 1] + [len(o.starts) for o in self.orders])
        return max(BLOCK_CELLS // widest, 1)

    def _checked_den(self, den_weights: np.ndarray, ndim: int) -> np.ndarray:
        d = np.asarray(den_weights, dtype=np.float64)
        if d.ndim != ndim or d.shape[-1] != self.n_items:
            raise MetricInputError(
                f"denominator weights of shape {d.shape}: the profile has {self.n_items} items"
            )
        return d

    def summed(
        self,
        weights: np.ndarray,
        item_counts: np.ndarray,
        den_weights: np.ndarray | None = None,
    ) -> np.ndarray:
        """Σ_i item_counts[b, i] · rows_i(weights[b]) for every replicate b: ``(B, n_stats)``.

        ``weights`` (B, n_refs), ``item_counts`` (B, n_items); ``den_weights`` (B, n_items), if
        given, replaces each item's max(max_j w_ij, 0) in the denominators, as in :meth:`rows`.
        Vectorised over replicates, a block of :meth:`block_rows` at a time: besides the
        arguments and the result, memory holds at most 4 · :data:`BLOCK_CELLS` float64
        (≈ 130 MB; the block's weights and counts with replicates last, a size's groups' maxima
        and one term) whatever B and the corpus, plus the plan of :attr:`ProfileOrder.buckets`
        (16 bytes a row). Equal to the loop over rows to rounding (the sums are taken in another
        order)."""
        w_all = self.checked_weights(weights, 2)
        c_all = np.asarray(item_counts, dtype=np.float64)
        if c_all.shape != (len(w_all), self.n_items):
            raise MetricInputError(
                f"item counts of shape {c_all.shape}, expected {(len(w_all), self.n_items)}"
            )
        d_all = None if den_weights is None else self._checked_den(den_weights, 2)
        if d_all is not None and len(d_all) != len(w_all):
            raise MetricInputError(f"{len(d_all)} rows of denominator weights for {len(w_all)}")
        out = np.zeros((len(w_all), self.n_stats))
        out[:, self.fixed_cols] = c_all @ self.fixed
        if self.n_items == 0:
            return out
        block = self.block_rows()
        for a in range(0, len(w_all), block):
            w, c = w_all[a : a + block], c_all[a : a + block]
            den = self.den_weights(w) if d_all is None else d_all[a : a + block]
            out[a : a + block, self.den_cols] = (c * den) @ self.den_base
            w_t, c_t = np.ascontiguousarray(w.T), np.ascontiguousarray(c.T)
            for col, order in zip(self.num_cols, self.orders, strict=True):
                out[a : a + block, col] = order.summed(w_t, c_t)
        return out

    # -- storage ------------------------------------------------------------------------------
    def to_arrays(self, out: dict[str, np.ndarray]) -> dict[str, Any]:
        """Store the arrays in ``out`` (compact dtypes); returns the JSON header that
        :meth:`from_arrays` needs besides them."""
        out["ref_ptr"], out["ref_weights"] = self.ref_ptr, self.ref_weights
        out["fixed"], out["den_base"] = self.fixed, self.den_base
        for k, order in enumerate(self.orders):
            sizes = np.diff(np.append(order.starts, len(order.ref)))
            out[f"order{k}.item"], out[f"order{k}.mult"] = order.item, order.mult
            out[f"order{k}.nrows"], out[f"order{k}.ref"] = compact(sizes), order.ref
            out[f"order{k}.amount"] = order.amount
        return {
            "format": PROFILE_FORMAT,
            "version": PROFILE_FORMAT_VERSION,
            "library_version": __version__,
            "metric": self.metric,
            "options": self.options,
            "item_ids": self.item_ids,
            "n_stats": self.n_stats,
            "num_cols": self.num_cols,
            "den_cols": self.den_cols,
            "fixed_cols": self.fixed_cols,
            "orders": len(self.orders),
        }

    @classmethod
    def from_arrays(cls, header: dict[str, Any], arrays: Any) -> WeightProfile:
        """The profile stored by :meth:`to_arrays` (the arrays are used as they are: a loaded
        file's stay memory-mapped)."""
        if header.get("format") != PROFILE_FORMAT:
            raise MetricInputError("not a weight profile")
        if header.get("version") != PROFILE_FORMAT_VERSION:
            raise MetricInputError(f"weight profile version {header.get('version')} unsupported")
        orders = []
        for k in range(int(header["orders"])):
            sizes = np.asarray(arrays[f"order{k}.nrows"], dtype=np.int64)
            starts = np.cumsum(sizes) - sizes
            item, mult = arrays[f"order{k}.item"], arrays[f"order{k}.mult"]
            orders.append(
                ProfileOrder(
                    item, mult, starts, arrays[f"order{k}.ref"], arrays[f"order{k}.amount"]
                )
            )
        return cls(
            header["metric"],
            header["options"],
            list(header["item_ids"]),
            int(header["n_stats"]),
            list(header["num_cols"]),
            list(header["den_cols"]),
            list(header["fixed_cols"]),
            arrays["ref_ptr"],
            arrays["ref_weights"],
            arrays["fixed"],
            arrays["den_base"],
            orders,
        )

    def save(self, path: str | Path) -> None:
        """Write the profile to ``path`` atomically (an :mod:`.arrayfile`: no pickle)."""
        arrays: dict[str, np.ndarray] = {}
        header = self.to_arrays(arrays)
        write_arrays(path, arrays, header)

    @classmethod
    def load(cls, path: str | Path, verify: bool = True) -> WeightProfile:
        """The profile saved at ``path`` (memory-mapped; ``verify``: check the checksum);
        :class:`MetricInputError` for anything else than an intact profile file."""
        try:
            arrays, header = read_arrays(path, verify=verify)
            return cls.from_arrays(header if isinstance(header, dict) else {}, arrays)
        except OSError as exc:
            raise MetricInputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
        except MetricInputError as exc:
            raise MetricInputError(f"{path}: {exc}") from exc
        except (ValueError, KeyError, TypeError) as exc:  # ArrayFileError is a ValueError
            raise MetricInputError(f"{path}: not a weight profile ({exc})") from exc


def _joined(parts: Sequence[Any], offsets: Sequence[int], dtype: Any) -> np.ndarray:
    """``parts[k] + offsets[k]`` concatenated, in ``dtype``."""
    shifted = [np.asarray(p, dtype=np.int64) + o for p, o in zip(parts, offsets, strict=True)]
    return np.concatenate(shifted).astype(dtype)


def concat_profiles(parts: Sequence[WeightProfile]) -> WeightProfile:
    """The profile of consecutive item ranges' profiles joined (``parts`` in item order): the
    same arrays as a profile built in one piece whose groups come in the same order.

    Raises :class:`MetricInputError` for no parts or parts of different metrics or options."""
    if not parts:
        raise MetricInputError("no weight profiles to join")
    first = parts[0]
    if any(p.layout() != first.layout() for p in parts):
        raise MetricInputError("weight profiles of different metrics or options cannot be joined")
    item_off = np.cumsum([0] + [p.n_items for p in parts]).tolist()
    ref_off = np.cumsum([0] + [p.n_refs for p in parts]).tolist()
    ref_ptr = _joined([[0]] + [p.ref_ptr[1:] for p in parts], [0, *ref_off[:-1]], np.int64)
    orders = []
    for k in range(len(first.orders)):
        mine = [p.orders[k] for p in parts]
        row_off = np.cumsum([0] + [len(o.ref) for o in mine]).tolist()
        orders.append(
            ProfileOrder(
                _joined([o.item for o in mine], item_off[:-1], index_dtype(item_off[-1])),
                compact(np.concatenate([o.mult for o in mine])),
                _joined([o.starts for o in mine], row_off[:-1], np.int64),
                _joined([o.ref for o in mine], ref_off[:-1], index_dtype(ref_off[-1])),
                compact(np.concatenate([o.amount for o in mine])),
            )
        )
    return replace(
        first,
        item_ids=[i for p in parts for i in p.item_ids],
        ref_ptr=ref_ptr,
        ref_weights=np.concatenate([p.ref_weights for p in parts]).astype(np.float64),
        fixed=np.concatenate([p.fixed for p in parts]).astype(np.float64),
        den_base=compact(np.concatenate([p.den_base for p in parts])),
        orders=orders,
    )
