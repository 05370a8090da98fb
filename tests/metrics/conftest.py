"""Shared helpers for the metric library tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# The project's public test vectors live in shared/testdata beside the checkout (CI has it
# there too); they are read in place rather than copied into the repository.
SHARED = Path(__file__).resolve().parents[3] / "shared" / "testdata"


def shared_json(name: str) -> dict:
    return json.loads((SHARED / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def vectors() -> dict:
    return shared_json("sacrebleu_vectors.json")


@pytest.fixture(scope="session")
def author_demo() -> dict:
    return shared_json("deltableu_author_demo.json")
