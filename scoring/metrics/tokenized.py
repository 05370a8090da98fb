"""References tokenized once, for the metrics that align words (4-GRR, AMBER)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .base import MetricInputError, RefItem


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
