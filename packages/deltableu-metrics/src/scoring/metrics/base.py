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

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np


@dataclass(frozen=True)
class OptionSpec:
    """One option of a metric: a keyword argument of its ``__init__`` and a CLI flag.

    ``type`` is ``str``, ``int``, ``float`` or ``bool``; ``choices`` restricts values;
    ``minimum``/``maximum`` bound numbers. The CLI flag is ``--`` + name with ``-`` for ``_``.
    """

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None

    @property
    def flag(self) -> str:
        """The command-line flag, e.g. ``--max-order`` for ``max_order``."""
        return "--" + self.name.replace("_", "-")

    def check(self, value: Any) -> Any:
        """``value`` converted to the option's type, or :class:`MetricInputError`."""
        if value is None and self.default is None:
            return None  # None means the metric's own default (e.g. per smoothing method)
        try:
            converted = self.type(value) if self.type is not bool else _to_bool(value)
        except (TypeError, ValueError):
            raise MetricInputError(
                f"option {self.name}: {value!r} is not a {self.type.__name__}"
            ) from None
        if self.type is float and not math.isfinite(converted):
            raise MetricInputError(f"option {self.name}: {value!r} is not a finite number")
        if self.choices is not None and converted not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise MetricInputError(f"option {self.name}: {value!r} is not one of {allowed}")
        if self.minimum is not None and converted < self.minimum:
            raise MetricInputError(f"option {self.name}: {value!r} is below {self.minimum}")
        if self.maximum is not None and converted > self.maximum:
            raise MetricInputError(f"option {self.name}: {value!r} is above {self.maximum}")
        return converted


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("true", "True", "1", 1):
        return True
    if value in ("false", "False", "0", 0):
        return False
    raise ValueError(value)


def resolve_options(specs: Sequence[OptionSpec], given: dict[str, Any]) -> dict[str, Any]:
    """Defaults overlaid with ``given`` (checked); unknown names raise :class:`MetricInputError`."""
    known = {spec.name: spec for spec in specs}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise MetricInputError(f"unknown option(s): {', '.join(unknown)}")
    return {name: spec.check(given.get(name, spec.default)) for name, spec in known.items()}


class MetricInputError(ValueError):
    """Bad input (line count mismatch, weight out of range, …); the message names the item."""


def check_hypotheses(hyps: Sequence[object], item_ids: Sequence[str]) -> None:
    """One hypothesis per item, each a string; else MetricInputError naming the item."""
    if len(hyps) != len(item_ids):
        raise MetricInputError(
            f"{len(hyps)} hypotheses for {len(item_ids)} items (line count mismatch)"
        )
    for k, hyp in enumerate(hyps):
        if not isinstance(hyp, str):
            raise MetricInputError(f"item {item_ids[k]!r}: hypothesis is not a string")


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
    # What the product shows: the class docstring on one line (see __init_subclass__).
    description: ClassVar[str] = ""
    higher_is_better: ClassVar[bool] = True
    uses_weights: ClassVar[bool] = False
    # True when a row depends on its own item's references only (no statistic of the whole
    # reference set, as NIST's information weights): a corpus can then be scored in parts.
    item_local: ClassVar[bool] = False
    options: ClassVar[tuple[OptionSpec, ...]] = ()
    # The values a score can take. Resampled scores that are shifted (the raters' replicates,
    # recentred) are kept inside it: an interval reaching below a score that cannot go below 0
    # describes nothing.
    score_range: ClassVar[tuple[float, float]] = (-math.inf, math.inf)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's ``description`` is its docstring, white space folded, unless it sets
        one: the text a user reads and the one a developer reads are then the same. (Without
        docstrings, under ``python -OO``, a description is empty.)"""
        super().__init_subclass__(**kwargs)
        if "description" not in vars(cls) and cls.__doc__:
            cls.description = " ".join(cls.__doc__.split())

    def __init__(self, **options: Any) -> None:
        """Store the checked options (defaults for the ones not given) in ``self.opts``."""
        self.opts: dict[str, Any] = resolve_options(self.options, options)

    def accepts_prepared(self, prepared: Any) -> bool:
        """Whether ``prepared`` (made by another metric or options) can be used as is."""
        return False

    def prepared_slice(self, prepared: Any, start: int, stop: int) -> Any | None:
        """``prepared`` cut down to items ``start:stop``, such that ``stats(hyps[start:stop],
        cut)`` is exactly (bit for bit) rows ``start:stop`` of ``stats(hyps, prepared)``; or
        None when the metric cannot cut it (callers then score every item, the others blank).

        Document-level information (NIST's information weights) stays that of all items."""
        return None

    def stats_direct(self, hyps: Sequence[str], items: Sequence[RefItem]) -> np.ndarray:
        """``stats(hyps, prepare(items))``; metrics may override with a faster one-shot path."""
        return self.stats(hyps, self.prepare(items))

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
