"""Text keys shared by the index and the duplicate checks."""

from __future__ import annotations

import re
import unicodedata

from bm25s.stopwords import STOPWORDS_EN_PLUS

WORD = re.compile(r"\w+")
# Two candidates whose word sets overlap this much say the same thing ("lol so true" and
# "lol so true!!" already share a normalized key; this also catches one added or changed word
# in a long reply) — the raters would only rate the same text twice.
NEAR_DUPLICATE_JACCARD = 0.8
# NLTK's English list (bm25s ships it): chat is mostly function words, and Lucene's short
# list leaves "i", "you", "what", "do" in every posting list.
STOPWORDS = {"en": frozenset(STOPWORDS_EN_PLUS)}


def normalize(text: str) -> str:
    """Case-folded words joined by single spaces: punctuation, accents of width and spacing go."""
    return " ".join(WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def tokens(text: str, language: str = "en") -> list[str]:
    """BM25 terms: normalized words without the language's stopwords (if we have a list)."""
    stop = STOPWORDS.get(language.split("-")[0], frozenset())
    return [word for word in normalize(text).split() if word not in stop]


def is_near_duplicate(a: str, b: str) -> bool:
    """True when two normalized texts are equal or their word sets overlap almost entirely."""
    if a == b:
        return True
    words_a, words_b = set(a.split()), set(b.split())
    if not words_a or not words_b:
        return False
    return len(words_a & words_b) / len(words_a | words_b) >= NEAR_DUPLICATE_JACCARD
