"""What the leaderboards tell lower floors, registered when the app is ready: adaptive rating
asks the boards which references decide their close pairs (selectors/sensitivity.py)."""

from __future__ import annotations

from annotate.rating.sensitivity_sources import sensitivity_source_register
from scoring.leaderboards.selectors.sensitivity import dataset_sensitivity


def register() -> None:
    sensitivity_source_register(dataset_sensitivity)
