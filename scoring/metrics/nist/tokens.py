"""NIST's tokenization: mteval-v13a's normalization or one of sacrebleu's tokenizers.

Two views of the same tokens: :func:`make_tokenizer` (``text -> tokens``, for metrics that
work on token lists: 4-GRR, AMBER) and :func:`encode_nist` (many lines to integer token ids at
once, for the NIST index; :mod:`..tokenizers` explains how lines are tokenized in bulk). Both
give, for every line, exactly the tokens of ``tokenizer(normalized line).split()``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any

from ..base import MetricInputError
from ..tokenizers import Segments, encode
from ..tokenizers import clear_token_cache as clear_line_cache

_SACREBLEU_TOKENIZERS = {
    "13a": "tokenizer_13a.Tokenizer13a",
    "intl": "tokenizer_intl.TokenizerV14International",
    "char": "tokenizer_char.TokenizerChar",
    "zh": "tokenizer_zh.TokenizerZh",
    "none": "tokenizer_none.NoneTokenizer",
}
TOKENIZERS = (*_SACREBLEU_TOKENIZERS, "mteval")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

# Tokenized strings kept per tokenizer and process: a correlation study scores the same
# outputs and references with NIST, ΔNIST, 4-GRR and AMBER, each of which tokenizes them.
TOKEN_CACHE_SIZE = 2**16


def make_tokenizer(name: str, lowercase: bool) -> Callable[[str], list[str]]:
    """Return ``text -> tokens`` for a tokenizer name of :data:`TOKENIZERS`.

    ``mteval`` is mteval-v13a's default normalization (ASCII A–Z folded, then the 13a rules);
    ``lowercase`` applies ``str.lower()`` first, as sacrebleu does. Raises ``MetricInputError``
    for an unknown name. Every call returns a new list (callers may change it).
    """
    cached = _cached_tokenizer(name, lowercase)
    return lambda text: list(cached(text))


def encode_nist(
    lines: Sequence[str],
    name: str,
    lowercase: bool,
    vocab: dict[str, int] | None = None,
    extend: bool = False,
) -> tuple[Segments, dict[str, int]]:
    """``lines`` as token ids (see :func:`..tokenizers.encode`, ``extend`` too), tokenized as
    :func:`make_tokenizer` does: trailing whitespace kept, ``mteval`` folding ASCII A–Z."""
    if name not in TOKENIZERS:
        raise MetricInputError(f"unknown tokenizer {name!r}; choose one of {TOKENIZERS}")
    fold = name == "mteval"
    return encode(
        lines, "13a" if fold else name, lowercase, vocab, rstrip=False, fold_ascii=fold,
        extend=extend,
    )  # fmt: skip


def clear_token_cache() -> None:
    """Forget every tokenized string (a benchmark times each metric from cold)."""
    for tokenize in _TOKENIZER_CACHES.values():
        tokenize.cache_clear()
    clear_line_cache()


_TOKENIZER_CACHES: dict[tuple[str, bool], Any] = {}


def _cached_tokenizer(name: str, lowercase: bool) -> Callable[[str], tuple[str, ...]]:
    if (name, lowercase) not in _TOKENIZER_CACHES:
        _TOKENIZER_CACHES[name, lowercase] = _new_cached_tokenizer(name, lowercase)
    return _TOKENIZER_CACHES[name, lowercase]


def _new_cached_tokenizer(name: str, lowercase: bool) -> Any:
    key = "13a" if name == "mteval" else name
    if key not in _SACREBLEU_TOKENIZERS:
        raise MetricInputError(f"unknown tokenizer {name!r}; choose one of {TOKENIZERS}")
    module_name, class_name = _SACREBLEU_TOKENIZERS[key].rsplit(".", 1)
    module = import_module(f"sacrebleu.tokenizers.{module_name}")
    tok = getattr(module, class_name)()
    fold = name == "mteval"

    @functools.lru_cache(maxsize=TOKEN_CACHE_SIZE)
    def tokenize(text: str) -> tuple[str, ...]:
        if lowercase:
            text = text.lower()
        if fold:
            text = text.translate(_ASCII_LOWER)
        return tuple(str(tok(text)).split())

    return tokenize
