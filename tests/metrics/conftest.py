"""Shared helpers for the metric library tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# The project's public test vectors (sacrebleu's, the ΔBLEU author's demo, WMT17 en-de system
# outputs), copied from shared/testdata so that the tests read nothing outside the repository.
SHARED = Path(__file__).resolve().parents[1] / "data" / "vectors"


def shared_json(name: str) -> dict:
    return json.loads((SHARED / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def vectors() -> dict:
    return shared_json("sacrebleu_vectors.json")


@pytest.fixture(scope="session")
def author_demo() -> dict:
    return shared_json("deltableu_author_demo.json")
