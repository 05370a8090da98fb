"""The metric registry: one entry per metric, found by name.

Adding a metric is one module with a :class:`~.base.Metric` subclass decorated with
:func:`register`, plus its module name in :data:`BUILTIN_MODULES` (imported lazily, on first
use of the registry). The CLI, bootstrap and significance tests work for every entry.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from .base import Metric, MetricInputError, OptionSpec

# Modules whose import registers metrics (scoring.metrics.<name>).
BUILTIN_MODULES: tuple[str, ...] = ("bleu", "sentence_bleu", "bleu_sbp", "nist", "grr", "amber")


@dataclass(frozen=True)
class MetricEntry:
    """What the product shows and needs about a metric."""

    name: str
    display_name: str
    description: str
    higher_is_better: bool
    uses_weights: bool
    options: tuple[OptionSpec, ...]
    cls: type[Metric]

    @property
    def defaults(self) -> dict[str, Any]:
        """Option defaults by name."""
        return {spec.name: spec.default for spec in self.options}


_REGISTRY: dict[str, MetricEntry] = {}
_loaded = False


def register(cls: type[Metric]) -> type[Metric]:
    """Class decorator: add ``cls`` to the registry under ``cls.name``."""
    if cls.name in _REGISTRY and _REGISTRY[cls.name].cls is not cls:
        raise ValueError(f"metric name {cls.name!r} registered twice")
    _REGISTRY[cls.name] = MetricEntry(
        cls.name,
        cls.display_name,
        cls.description,
        cls.higher_is_better,
        cls.uses_weights,
        tuple(cls.options),
        cls,
    )
    return cls


def _load() -> None:
    global _loaded
    if not _loaded:
        for module in BUILTIN_MODULES:
            importlib.import_module(f"{__package__}.{module}")
        _loaded = True


def entries() -> dict[str, MetricEntry]:
    """All registered metrics by name: built-in modules in :data:`BUILTIN_MODULES` order (each
    in its registration order), then any others as registered. Import order does not matter,
    so tables and lists keep one order whatever code imported a metric module first."""
    _load()
    prefix = f"{__package__}."

    def rank(entry: MetricEntry) -> int:
        module = entry.cls.__module__.removeprefix(prefix).split(".")[0]  # a package's modules
        return BUILTIN_MODULES.index(module) if module in BUILTIN_MODULES else len(BUILTIN_MODULES)

    ordered = sorted(_REGISTRY.values(), key=rank)  # stable: registration order within a rank
    return {entry.name: entry for entry in ordered}


def get_entry(name: str) -> MetricEntry:
    """The entry called ``name``, or :class:`MetricInputError` listing the known names."""
    _load()
    if name not in _REGISTRY:
        raise MetricInputError(f"unknown metric {name!r}; choose one of {', '.join(_REGISTRY)}")
    return _REGISTRY[name]


def get_metric(name: str, **options: Any) -> Metric:
    """An instance of metric ``name`` with ``options`` (checked; defaults for the rest)."""
    return get_entry(name).cls(**options)
