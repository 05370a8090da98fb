"""References tokenized once, for the metrics that align words (4-GRR, AMBER)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .base import MetricInputError, RefItem


@dataclass
class TokenizedRefs:
    """Prepared references of the word-aligning metrics: token lists per item and reference."""

    ids: list[str]
    refs: list[list[list[str]]]
    nrefs: int | str

    def slice(self, start: int, stop: int) -> TokenizedRefs:
        return TokenizedRefs(self.ids[start:stop], self.refs[start:stop], self.nrefs)


def tokenized_slice(
    prepared: Any, start: int, stop: int, prepare: Callable[[Sequence[RefItem]], TokenizedRefs]
) -> TokenizedRefs:
    """Items ``start:stop`` of a word-aligning metric's prepared references: a slice of
    TokenizedRefs, or references deferred (index.DeferredRefs) until a chunk is scored, which
    ``prepare`` tokenizes now for the chunk's items only (each item's statistics depend on its
    own references only)."""
    if isinstance(prepared, TokenizedRefs):
        return prepared.slice(start, stop)
    part = prepare(prepared.items(start, stop))
    part.nrefs = prepared.nrefs
    return part


def tokenize_references(
    items: Sequence[RefItem], tokenize: Callable[[str], list[str]]
) -> tuple[list[str], list[list[list[str]]], int | str]:
    """Item ids, each item's tokenized references, and nrefs for the signature ("var" when
    items have different numbers of references). An item without references is an error."""
    refs = []
    for item in items:
        if not item.refs:
            raise MetricInputError(f"item {item.id!r} has no reference")
        refs.append([tokenize(r.text) for r in item.refs])
    counts = {len(r) for r in refs}
    nrefs: int | str = counts.pop() if len(counts) == 1 else "var"
    return [item.id for item in items], refs, nrefs
