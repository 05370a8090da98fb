"""The contract every metric in this library follows (plain Python + numpy, no Django).

A metric is split in three steps, as sacrebleu does for BLEU:

1. ``prepare(items)`` tokenizes and indexes the (weighted) references once. The result is a
   picklable object that can be saved to a file and reused for every submission scored against
   the same references (the "reference index").
2. ``stats(hyps, prepared)`` turns each hypothesis into one row of sufficient statistics
   (float64). Corpus statistics are the column sums of that matrix.
3. ``scores_from_stats(summed)`` is a pure, vectorised function from summed statistics to a
   score: ``summed`` has shape ``(..., n_stats)`` and the result shape ``(...)``, so a bootstrap
   can score 1,000 resampled corpora in one call without re-tokenizing anything.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np


class MetricInputError(ValueError):
    """Bad input (line count mismatch, weight out of range, …); the message names the item."""


@dataclass(frozen=True)
class WeightedRef:
    """One candidate reference with its weight in [-1, +1] (1 for plain multi-reference BLEU)."""

    text: str
    weight: float = 1.0


@dataclass(frozen=True)
class RefItem:
    """The references of one test item; ``id`` is used in error messages and for matching."""

    id: str
    refs: tuple[WeightedRef, ...]


@dataclass(frozen=True)
class ScoreResult:
    """A corpus-level score with the metric's extra fields and its signature."""

    score: float
    signature: str
    extras: dict[str, Any] = field(default_factory=dict)


class Metric(ABC):
    """Base class of every registered metric; options are keyword arguments of ``__init__``."""

    name: ClassVar[str]
    display_name: ClassVar[str]
    description: ClassVar[str]
    higher_is_better: ClassVar[bool] = True
    uses_weights: ClassVar[bool] = False

    @abstractmethod
    def prepare(self, items: Sequence[RefItem]) -> Any:
        """Tokenize and index the references; the result is picklable (the reference index)."""

    @abstractmethod
    def stats(self, hyps: Sequence[str], prepared: Any) -> np.ndarray:
        """Per-item sufficient statistics, shape ``(len(hyps), n_stats)``, dtype float64."""

    @abstractmethod
    def scores_from_stats(self, summed: np.ndarray) -> np.ndarray:
        """Scores for summed statistics of shape ``(..., n_stats)``; result shape ``(...)``."""

    @abstractmethod
    def result(self, summed: np.ndarray) -> ScoreResult:
        """The full result (score, extras such as precisions, signature) for one corpus."""

    @abstractmethod
    def signature(self, nrefs: int | str) -> str:
        """The reproducibility signature, e.g. ``dbleu|def:paper|nrefs:16|…|version:0.1.0``."""
