"""Fixtures of the platform's tests (the run engine's kind and broker are in run_kind_kit)."""

from tests.core.run_kind_kit import sent, test_kind  # noqa: F401  (fixtures)
