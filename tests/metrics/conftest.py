"""Shared helpers for the metric library tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# Public test vectors kept in this repository (tests/data/vectors, see its README): sacrebleu's,
# the ΔBLEU author's demo, and WMT17 en-de system outputs with their published scores.
VECTORS_DIR = Path(__file__).resolve().parents[1] / "data" / "vectors"


def vector_json(name: str) -> dict:
    return json.loads((VECTORS_DIR / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def vectors() -> dict:
    return vector_json("sacrebleu_vectors.json")


@pytest.fixture(scope="session")
def author_demo() -> dict:
    return vector_json("deltableu_author_demo.json")
