"""Shared pytest configuration of the metric library's tests."""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``slow`` marker (tests over ~5 s; they still run in CI)."""
    config.addinivalue_line("markers", "slow: takes more than ~5 s (still runs in CI)")
