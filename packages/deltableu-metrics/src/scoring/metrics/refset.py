"""References flattened into arrays: what every index file stores besides its prepared form."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

from .base import MetricInputError, RefItem, WeightedRef


@dataclass
class RefSet:
    """Flattened references: item ``i`` owns references ``ptr[i]:ptr[i+1]``."""

    item_ids: list[str]
    texts: Sequence[str]  # a list, or PackedStrings when loaded from a file
    weights: np.ndarray
    ptr: np.ndarray

    @classmethod
    def of(cls, items: Sequence[RefItem], check_weights: bool = True) -> RefSet:
        """Flatten and validate ``items`` (≥ 1 reference each, weights finite in [-1, +1]
        unless ``check_weights`` is false: NIST ignores weights and never checked them).
        :class:`RefItems` (what the readers return) are flattened already: no copy."""
        if isinstance(items, RefItems):
            return items.refset
        texts: list[str] = []
        weights: list[float] = []
        ptr = [0]
        for item in items:
            if not item.refs:
                raise MetricInputError(f"item {item.id!r}: no references")
            for ref in item.refs:
                w = float(ref.weight)
                if check_weights and not -1.0 <= w <= 1.0:  # also rejects NaN
                    raise MetricInputError(
                        f"item {item.id!r}: weight {ref.weight!r} not in [-1, 1]"
                    )
                texts.append(ref.text)
                weights.append(w)
            ptr.append(len(texts))
        return cls(
            [it.id for it in items], texts, np.array(weights, dtype=np.float64), np.array(ptr)
        )

    def part(self, start: int, stop: int) -> RefSet:
        """Items ``start:stop`` as a RefSet of their own (the texts are shared, not copied)."""
        lo, hi = int(self.ptr[start]), int(self.ptr[stop])
        return RefSet(
            self.item_ids[start:stop],
            self.texts[lo:hi],
            self.weights[lo:hi],
            self.ptr[start : stop + 1] - lo,
        )

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.item_ids)

    @property
    def item_of_ref(self) -> np.ndarray:
        """The item of every reference."""
        return np.repeat(np.arange(self.n_items, dtype=np.int64), np.diff(self.ptr))

    def items(self, start: int = 0, stop: int | None = None) -> list[RefItem]:
        """Back to :class:`RefItem` objects (items ``start:stop``, all by default)."""
        stop = self.n_items if stop is None else stop
        return [
            RefItem(
                self.item_ids[i],
                tuple(
                    WeightedRef(self.texts[j], float(self.weights[j]))
                    for j in range(int(self.ptr[i]), int(self.ptr[i + 1]))
                ),
            )
            for i in range(start, stop)
        ]


class RefItems(Sequence[RefItem]):
    """A read-only sequence of :class:`RefItem` kept as a :class:`RefSet` (flat texts, a weight
    array and item pointers): what :func:`~.io.read_refs_jsonl` returns. 160,000 references
    cost two lists and two arrays instead of 170,000 objects; items are built when indexed."""

    def __init__(self, refset: RefSet) -> None:
        """Wrap ``refset`` (its weights are already checked)."""
        self.refset = refset

    def __len__(self) -> int:
        return self.refset.n_items

    @overload
    def __getitem__(self, index: int) -> RefItem: ...

    @overload
    def __getitem__(self, index: slice) -> list[RefItem]: ...

    def __getitem__(self, index: int | slice) -> RefItem | list[RefItem]:
        n = self.refset.n_items
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step == 1:
                return self.refset.items(start, max(start, stop))
            return [self[i] for i in range(start, stop, step)]
        if not -n <= index < n:
            raise IndexError("RefItems index out of range")
        return self.refset.items(index % n, index % n + 1)[0]

    def __iter__(self) -> Iterator[RefItem]:
        step = 4096  # items built a block at a time
        for start in range(0, self.refset.n_items, step):
            yield from self.refset.items(start, min(start + step, self.refset.n_items))

    @property
    def ids(self) -> list[str]:
        """The item ids, in order."""
        return self.refset.item_ids

    def nrefs(self) -> int | str:
        """References per item, or ``var`` when it varies."""
        counts = set(np.diff(self.refset.ptr).tolist())
        return int(counts.pop()) if len(counts) == 1 else "var"


def item_ids(items: Sequence[RefItem]) -> list[str]:
    """The ids of ``items`` (without building :class:`RefItem` objects for :class:`RefItems`)."""
    return items.ids if isinstance(items, RefItems) else [it.id for it in items]
