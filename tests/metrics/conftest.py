"""Shared helpers for the metric library tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).parents[1] / "data"
SHARED = Path(__file__).parents[3] / "shared" / "testdata"


@pytest.fixture(scope="session")
def vectors() -> dict:
    return json.loads((DATA / "sacrebleu_vectors.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def author_demo() -> dict:
    return json.loads((DATA / "deltableu_author_demo.json").read_text(encoding="utf-8"))
