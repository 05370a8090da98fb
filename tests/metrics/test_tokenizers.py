"""Joined-line tokenization equals sacrebleu line by line; the token cache is invisible."""

from __future__ import annotations

import numpy as np
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.metrics import tokenizers
from scoring.metrics.token_cache import TokenCache
from scoring.metrics.tokenizers import TOKENIZERS, encode
from tests.examples import examples

from .helpers import given_tokenizer_cases, tokens_per_line

# Characters the 13a and intl rules treat specially, next to letters, digits and spaces.
SPECIAL = ["&amp;", "&quot;", "\n", "\t", "ü", "中", "<skipped>", "-\n", "\x1c", "\x01", "\ue000"]
ALPHABET = st.sampled_from([*"ab Z9.,-'\"&<>;:!?$%()[]/\\@#", *SPECIAL])
LINE = st.lists(ALPHABET, max_size=25).map("".join)


def _sacrebleu(line: str, name: str, lowercase: bool) -> list[str]:
    line = (line.lower() if lowercase else line).rstrip()
    return sacrebleu.BLEU(tokenize=name).tokenizer(line).split()  # sacrebleu's own objects


@settings(max_examples=examples(80), deadline=None)
@given_tokenizer_cases(LINE, 8, TOKENIZERS)
def test_encode_equals_sacrebleu_line_by_line(lines, name, lowercase):
    segs, vocab = encode(lines, name, lowercase)
    assert tokens_per_line(segs, vocab) == [_sacrebleu(x, name, lowercase) for x in lines]


def test_repeated_lines_and_a_cache_hit_give_the_same_segments():
    lines = ["a b, c.", "x (y)", "a b, c.", "Z"]
    first, vocab = encode(lines, "13a", False)
    again, vocab_again = encode(list(lines), "13a", False)
    assert vocab == vocab_again
    for field in ("ids", "starts", "lens"):
        assert np.array_equal(getattr(first, field), getattr(again, field))
    abc = ["a", "b", ",", "c", "."]
    assert tokens_per_line(first, vocab) == [abc, ["x", "(", "y", ")"], abc, ["Z"]]


def test_token_cache_drops_the_least_recently_used_past_its_limit():
    cache = TokenCache(limit=5)
    calls = []

    def tokens(key, n):
        return cache.get(key, lambda: calls.append(key) or (["t"] * n, "\x01"))

    tokens("a", 3)
    tokens("b", 2)
    tokens("a", 3)  # hit: "a" becomes the most recent
    tokens("c", 2)  # 7 tokens > 5: "b", the least recent, goes
    tokens("a", 3)
    tokens("b", 2)
    assert calls == ["a", "b", "c", "b"]
    assert cache.tokens <= cache.limit
    tokens("huge", 9)  # larger than the whole cache: computed, never kept
    tokens("huge", 9)
    assert calls[-2:] == ["huge", "huge"]


def test_encode_keeps_the_cache_within_its_limit(monkeypatch):
    monkeypatch.setattr(tokenizers, "_JOINED", TokenCache(limit=10))
    encode(["one two three four five six"], "13a", False)
    encode(["seven eight nine ten eleven"], "13a", False)
    assert 0 < tokenizers._JOINED.tokens <= 10
    assert len(tokenizers._JOINED.entries) == 1  # the first line list made room


def test_clear_token_cache_forgets_everything(monkeypatch):
    monkeypatch.setattr(tokenizers, "_JOINED", TokenCache(limit=100))
    encode(["a b c"], "13a", False)
    tokenizers.clear_token_cache()
    assert tokenizers._JOINED.tokens == 0 and not tokenizers._JOINED.entries


@settings(max_examples=examples(40), deadline=None)
@given(lines=st.lists(LINE, min_size=1, max_size=12), name=st.sampled_from(TOKENIZERS))
def test_encoding_in_blocks_gives_the_same_tokens_and_hypotheses_first_ids(lines, name):
    whole, vocab = encode(lines, name, False)
    original = tokenizers.ENCODE_LINES
    tokenizers.ENCODE_LINES = 3  # blocks of 3 distinct lines, each with its own separator
    try:
        blocks, block_vocab = encode(lines, name, False)
        known = {"a": 0, "Z": 1}
        fixed, same = encode(lines, name, False, vocab=known)
    finally:
        tokenizers.ENCODE_LINES = original
    assert tokens_per_line(blocks, block_vocab) == tokens_per_line(whole, vocab)
    assert same is known and known == {"a": 0, "Z": 1}  # the caller's vocabulary is untouched
    names = {0: "a", 1: "Z"}
    assert [
        [names.get(int(i)) for i in fixed.ids[s : s + n]]
        for s, n in zip(fixed.starts, fixed.lens, strict=True)
    ] == [[t if t in known else None for t in toks] for toks in tokens_per_line(whole, vocab)]
    # Ids follow first occurrence (match_direct relies on it), with no gap.
    first_seen = list(dict.fromkeys(t for toks in tokens_per_line(whole, vocab) for t in toks))
    assert block_vocab == {t: i for i, t in enumerate(first_seen)}
