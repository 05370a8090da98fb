"""Choosing a seed's candidates from BM25 hits: no duplicates, nothing from its own thread."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from annotate.mining.corpus import Triple
from annotate.mining.index import Hit
from annotate.mining.text import is_near_duplicate, normalize

DEFAULT_K = 15  # the paper's "top 15 responses for each message-response pair"
# Hits fetched per candidate wanted: duplicates and the seed's own thread are dropped, and the
# next hits take their place.
POOL_FACTOR = 3
# A corpus triple sharing this many turns with the seed is taken from the seed's own thread.
SHARED_TURNS_SAME_THREAD = 2


@dataclass(frozen=True)
class Seed:
    """An item as mining sees it: its turns, and every text it already has or had removed."""

    external_id: str
    context: list[str]
    message: str
    responses: list[str]  # original references: the other half of the query
    existing: list[str]  # every reference's text, any origin
    dismissed: frozenset[str] = frozenset()  # text_key() of candidates the owner removed


@dataclass(frozen=True)
class Candidate:
    text: str
    origin: str  # "mined" or "parroted"
    provenance: dict[str, Any] = field(default_factory=dict)


def text_key(text: str) -> str:
    return hashlib.sha256(normalize(text).encode()).hexdigest()


def seed_query(seed: Seed) -> tuple[str, str]:
    """The two halves of the BM25 query: the seed's message, and its original response(s)."""
    return seed.message, " ".join(seed.responses)


def same_thread(seed: Seed, triple: Triple) -> bool:
    """Whether a corpus triple comes from the seed's own conversation.

    Either the corpus names its conversation and that name is the item's id, or the triple
    shares two turns with the seed (one shared turn is common: "lol", "thanks!").
    """
    if triple.conversation and triple.conversation == seed.external_id:
        return True
    seed_turns = {normalize(t) for t in [*seed.context, seed.message, *seed.responses]}
    triple_turns = {normalize(t) for t in [*triple.context, triple.message, triple.response]}
    return len((seed_turns & triple_turns) - {""}) >= SHARED_TURNS_SAME_THREAD


class _Kept:
    """Normalized texts already taken for an item, for the duplicate checks."""

    def __init__(self, texts: Iterable[str], dismissed: frozenset[str]) -> None:
        self.texts = [normalize(t) for t in texts]
        self.dismissed = dismissed

    def admits(self, text: str) -> bool:
        key = normalize(text)
        if not key or text_key(text) in self.dismissed:
            return False
        return not any(is_near_duplicate(key, kept) for kept in self.texts)

    def add(self, text: str) -> None:
        self.texts.append(normalize(text))


def choose_candidates(
    seed: Seed, hits: Iterable[tuple[Hit, Triple]], *, k: int, source: dict[str, Any]
) -> list[Candidate]:
    """Up to k mined responses, best first, then the parroted message (if new).

    `hits` are in BM25 order; `source` (corpus name and id) goes into every provenance.
    """
    kept = _Kept(seed.existing, seed.dismissed)
    parrot = kept.admits(seed.message)
    kept.add(seed.message)  # a mined reply equal to the message would be the parrot again
    chosen: list[Candidate] = []
    for hit, triple in hits:
        if len(chosen) == k:
            break
        if same_thread(seed, triple) or not kept.admits(triple.response):
            continue
        kept.add(triple.response)
        chosen.append(Candidate(triple.response, "mined", _provenance(hit, triple, source)))
    for rank, candidate in enumerate(chosen, start=1):
        candidate.provenance["rank"] = rank
    if parrot:
        parroted = {"method": "parroted", **({"run": source["run"]} if "run" in source else {})}
        chosen.append(Candidate(seed.message, "parroted", parroted))
    return chosen


def _provenance(hit: Hit, triple: Triple, source: dict[str, Any]) -> dict[str, Any]:
    provenance: dict[str, Any] = {
        "method": "bm25",
        **source,
        "row": triple.line,
        "score": round(hit.score, 4),
        "source_context": triple.context,
        "source_message": triple.message,
    }
    if triple.conversation:
        provenance["conversation"] = triple.conversation
    return provenance
