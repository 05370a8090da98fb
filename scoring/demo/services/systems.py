"""The demo's four baseline systems: simple, reproducible ways to reply to a conversation, of
clearly different quality, made from the dataset itself.

None of them copies a reference verbatim: raters of the human evaluation see the outputs, and
the test split's references are hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotate.datasets.models import Item

GENERIC_REPLY = "i don't know, what do you think?"


def _original(item: Item) -> str:
    return next(ref.text for ref in item.references.all() if ref.origin == "original")


def _other_good(item: Item) -> str:
    goods = [
        ref.text
        for ref in item.references.all()
        if ref.origin != "original" and (ref.provenance or {}).get("quality") == "good"
    ]
    return goods[0] if goods else _original(item)


def _thinned(text: str, every: int) -> str:
    """Every `every`-th word left out: the gist, in other words."""
    words = text.split()
    return " ".join(word for k, word in enumerate(words, 1) if k % every or len(words) < 4)


def _shortened(text: str, keep: float) -> str:
    words = text.split()
    return " ".join(words[: max(2, int(len(words) * keep))])


@dataclass(frozen=True)
class Baseline:
    method: str
    description: str
    quality: float  # the mean score the simulated raters give its outputs (1–5)

    def reply(self, item: Item) -> str:
        return REPLIES[self.method](item)


REPLIES = {
    "Paraphrase": lambda item: _thinned(_original(item), 5),
    "Half reply": lambda item: _shortened(_other_good(item), 0.5) + " i guess",
    "Generic": lambda item: GENERIC_REPLY,
    "Echo": lambda item: f"you said {item.message}",
}

BASELINES = (
    Baseline("Paraphrase", "The conversation's own reply with every fifth word left out.", 4.3),
    Baseline(
        "Half reply", "The first half of another good reply and a shrug: on topic, cut short.", 3.2
    ),
    Baseline("Generic", f"Always answers “{GENERIC_REPLY}”.", 2.1),
    Baseline("Echo", "Repeats the message back: many shared words, no reply at all.", 1.4),
)
