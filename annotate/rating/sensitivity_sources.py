"""Where adaptive rating learns what the leaderboards need: sources registered at start-up.

The boards live on a higher floor (scoring), so this floor cannot ask them; instead the
leaderboards app registers a source when it is ready, and the adaptive service asks every
registered source about a dataset.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SensitivityReport:
    """What the boards of a dataset say: per live reference id, Σ closeness · (∂Δ/∂w)², and a
    line per board for the campaign's dashboard (name, pairs used, closest pair)."""

    terms: dict[int, float] = field(default_factory=dict)
    boards: list[dict[str, Any]] = field(default_factory=list)

    def add(self, other: SensitivityReport) -> None:
        for reference_id, value in other.terms.items():
            self.terms[reference_id] = self.terms.get(reference_id, 0.0) + value
        self.boards.extend(other.boards)


SensitivitySource = Callable[[int], SensitivityReport]
_SOURCES: list[SensitivitySource] = []


def sensitivity_source_register(source: SensitivitySource) -> None:
    """Let `source(dataset_id)` report its boards' sensitivities (once per source)."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def dataset_sensitivity_report(*, dataset_id: int) -> SensitivityReport:
    report = SensitivityReport()
    for source in _SOURCES:
        report.add(source(dataset_id))
    return report
