"""A human evaluation as it is published in one CSV (issue 41): one row per system × item with
the mean rating over judges (no judge column), the system's response, the item's references
in one cell separated by tabs with the original LAST, and the context's turns in one cell
separated by `||||` (the last turn is the message answered).

    published = published_eval(systems=5, items=20)
    published.data, published.references["i3"], published.turns["i3"]
"""

from __future__ import annotations

import csv
import io
import random
from dataclasses import dataclass, field

HEADER = ["system", "item_id", "mean_rating", "response", "references", "context"]
WORDS = ["pizza", "rain", "song", "trip", "meeting", "coffee", "beach", "train", "band", "boss"]


@dataclass
class PublishedEval:
    data: bytes
    systems: list[str]
    item_ids: list[str]
    turns: dict[str, list[str]]  # item → its turns, the message last
    references: dict[str, list[str]]  # item → references, the original FIRST (as stored)
    responses: dict[tuple[str, str], str]  # (system, item) → response
    means: dict[tuple[str, str], float]  # (system, item) → mean rating
    judges: dict[tuple[str, str], int] = field(default_factory=dict)


def _sentence(rng: random.Random, n: int = 6) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def published_eval(
    *, systems: int = 5, items: int = 20, seed: int = 41, n_judges: bool = False
) -> PublishedEval:
    """The CSV's bytes and what an import of it must give. With `n_judges`, a column saying
    over how many judges each mean is (3 to 5)."""
    rng = random.Random(seed)
    names = [f"sys-{k}" for k in range(1, systems + 1)]
    ids = [f"i{k}" for k in range(1, items + 1)]
    found = PublishedEval(b"", names, ids, {}, {}, {}, {})
    for item in ids:
        found.turns[item] = [_sentence(rng) for _ in range(rng.randint(1, 4))]
        others = [_sentence(rng) for _ in range(rng.randint(0, 3))]
        found.references[item] = [f"original reply to {item}", *others]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER + (["n_judges"] if n_judges else []))
    for system in names:
        for item in ids:
            found.responses[(system, item)] = f"{system} says {_sentence(rng, 4)}"
            found.means[(system, item)] = round(rng.uniform(1, 5), 2)
            found.judges[(system, item)] = rng.randint(3, 5)
            original, *others = found.references[item]
            row = [
                system,
                item,
                found.means[(system, item)],
                found.responses[(system, item)],
                "\t".join([*others, original]),  # the original last, as published
                "||||".join(found.turns[item]),
            ]
            writer.writerow(row + ([found.judges[(system, item)]] if n_judges else []))
    found.data = out.getvalue().encode()
    return found
