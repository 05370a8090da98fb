"""The demo dataset loaded by `make run` is well formed and in the canonical JSONL form.

Plain json, no database: the importer and exporter have their own tests; this one
guards the file itself, so a hand edit that breaks the round-trip or the counts fails
here first.
"""

import json
from collections import Counter
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURE = REPO_ROOT / "annotate" / "datasets" / "fixtures" / "demo_dataset.jsonl"
ORIGINS = {"original", "mined", "parroted", "written"}
QUALITIES = {"good", "fair", "poor"}
ITEM_KEYS = ["id", "split", "context", "message", "references"]
REFERENCE_KEYS = ["text", "origin", "provenance"]


@pytest.fixture(scope="module")
def raw() -> bytes:
    return FIXTURE.read_bytes()


@pytest.fixture(scope="module")
def items(raw: bytes) -> list[dict]:
    return [json.loads(line) for line in raw.decode("utf-8").splitlines()]


def test_it_has_thirty_items_with_unique_ids(items):
    assert len(items) == 30
    ids = [item["id"] for item in items]
    assert len(set(ids)) == len(ids)


def test_it_splits_twenty_dev_and_ten_test(items):
    assert Counter(item["split"] for item in items) == {"dev": 20, "test": 10}


def test_it_round_trips_byte_for_byte_in_canonical_form(raw, items):
    canonical = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)
    assert canonical.encode("utf-8") == raw


def test_every_item_has_its_keys_in_order_and_one_to_three_context_turns(items):
    for item in items:
        assert list(item) == ITEM_KEYS, item["id"]
        assert 1 <= len(item["context"]) <= 3, item["id"]
        for turn in item["context"]:
            assert isinstance(turn, str) and turn.strip(), item["id"]
        assert item["message"].strip(), item["id"]


def test_every_item_has_eight_to_twelve_references_with_valid_origins(items):
    for item in items:
        references = item["references"]
        assert 8 <= len(references) <= 12, item["id"]
        for reference in references:
            assert list(reference) == REFERENCE_KEYS, item["id"]
            assert reference["origin"] in ORIGINS, item["id"]
            assert reference["provenance"]["quality"] in QUALITIES, item["id"]
            assert reference["text"].strip(), item["id"]


def test_every_item_has_exactly_one_good_original_and_one_parroted_message(items):
    for item in items:
        origins = Counter(reference["origin"] for reference in item["references"])
        assert origins["original"] == 1, item["id"]
        assert origins["parroted"] == 1, item["id"]
        assert origins["mined"] >= 1 and origins["written"] >= 1, item["id"]
        by_origin = {ref["origin"]: ref for ref in item["references"]}
        # ΔBLEU needs a positively weighted reference per item: the real reply.
        assert by_origin["original"]["provenance"]["quality"] == "good", item["id"]
        assert by_origin["parroted"]["text"] == item["message"], item["id"]


def test_mined_references_name_their_source(items):
    for item in items:
        for reference in item["references"]:
            if reference["origin"] == "mined":
                assert reference["provenance"]["source"] == "demo-corpus", item["id"]


def test_no_item_repeats_a_reference(items):
    for item in items:
        texts = [reference["text"] for reference in item["references"]]
        assert len(set(texts)) == len(texts), item["id"]


def test_quality_is_mixed_roughly_forty_twenty_five_thirty_five(items):
    references = [ref for item in items for ref in item["references"]]
    qualities = Counter(ref["provenance"]["quality"] for ref in references)
    total = sum(qualities.values())
    assert 0.30 <= qualities["good"] / total <= 0.50
    assert 0.15 <= qualities["fair"] / total <= 0.35
    assert 0.25 <= qualities["poor"] / total <= 0.45


def test_it_exercises_tokenization_with_non_ascii_digits_and_apostrophes(raw):
    text = raw.decode("utf-8")
    assert any(ord(char) > 127 for char in text)
    assert any(char.isdigit() for char in text)
    assert "'" in text
