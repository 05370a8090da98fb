"""Every metric's tokenization: one registry of tokenizers and one token cache.

The tokenizers are sacrebleu's, by name (:data:`ALL_TOKENIZERS`): ``13a`` (mteval-v13a's rules),
``none`` and ``char`` are built in here, rule for rule as sacrebleu 2.x has them (the tests
compare them with sacrebleu on every vector and on hostile text), so that the library needs
numpy only; ``intl`` and ``zh`` are sacrebleu's own objects, reached through its public
``sacrebleu.BLEU(tokenize=...).tokenizer`` (install the ``sacrebleu`` extra). ``mteval`` is
NIST's folding of ASCII A–Z before 13a. Two views of the same tokens: :func:`make_tokenizer`
(``text -> tokens``) and :func:`encode` (many lines to integer token ids at once;
:func:`encode_nist` keeps trailing whitespace and splits words on Perl's ``\\s`` as NIST's
mteval-v13a does), both through one cache of recent results.

What this module adds is throughput: each distinct string is tokenized once, and for ``13a`` and
``none`` a whole block of lines is joined with a separator that no tokenizer rule touches (a
private-use character absent from the block) and tokenized in one call, which gives exactly the
per-line result (the rules look at most one character left and right, and every line is padded
by spaces on both sides of the separator). When no such character is free, lines are tokenized
one by one and a space marks the line breaks (no token ever contains whitespace).
``tests/metrics/test_tokenizers.py`` checks the equivalence against per-line sacrebleu.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from .base import MetricInputError
from .token_cache import TokenCache

_BUILTIN = ("13a", "none", "char")
_SACREBLEU_ONLY = ("intl", "zh")
_FOLDED = {"mteval": "13a"}
TOKENIZERS = ("13a", "intl", "none", "char")  # the BLEU family's choices (sacrebleu's BLEU)
ALL_TOKENIZERS = ("13a", "intl", "char", "zh", "none", *_FOLDED)  # NIST, 4-GRR, AMBER: all
# A line break between tokens when lines are tokenized one by one: split() never yields it.
LINE_BREAK = " "
# Joined-text separators: private-use characters (not whitespace, not punctuation or digits for
# 13a, untouched by lowercasing); the first one absent from a block is used.
_SEPARATOR_RANGES = (range(0xE000, 0xF900), range(0xF0000, 0xFFFFE), range(0x100000, 0x10FFFE))
# Whitespace for Perl's \s on character strings (mteval-v13a reads UTF-8): Unicode White_Space.
# Python's str.split() also splits on U+001C–U+001F; Perl, and so NIST's mteval, does not.
_PERL_SPACE = re.compile(
    r"[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"
)
_INFO_SEPARATORS = ("\x1c", "\x1d", "\x1e", "\x1f")

# mteval-v13a's language-dependent rules as sacrebleu's TokenizerRegexp has them, in order. The
# first, ``([\{-\~\[-\` -\&\(-\+\:-\@\/])`` → `` \1 ``, pads one character at a time: it is the
# same as a translation table (a C loop instead of a Python callback per match).
_PUNCT_13A = [*range(0x7B, 0x7F), *range(0x5B, 0x61), *range(0x20, 0x27), *range(0x28, 0x2C)]
_PUNCT_13A += [*range(0x3A, 0x41), 0x2F]
_PAD_13A = str.maketrans({chr(c): f" {chr(c)} " for c in _PUNCT_13A})
_RULES_13A = (
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def _rules_13a(text: str) -> str:
    """13a's language-independent part, then its rules (no whitespace squeezing: callers split)."""
    text = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in text:
        text = text.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
        text = text.replace("&gt;", ">")
    text = f" {text} ".translate(_PAD_13A)
    for pattern, repl in _RULES_13A:
        text = pattern.sub(repl, text)
    return text


def _tokenize_13a(line: str) -> str:
    return " ".join(_rules_13a(line).split())


def _tokenize_none(line: str) -> str:
    return line


def _tokenize_char(line: str) -> str:
    return " ".join(line)


_NATIVE: dict[str, Callable[[str], str]] = {
    "13a": _tokenize_13a,
    "none": _tokenize_none,
    "char": _tokenize_char,
}
# The built-in tokenizers before whitespace is squeezed: callers split words themselves
# (Python's or Perl's whitespace, see split_words).
_UNSQUEEZED: dict[str, Callable[[str], str]] = {
    "13a": _rules_13a,
    "none": _tokenize_none,
    "char": _tokenize_char,
}


def _unsqueezed(name: str) -> Callable[[str], str]:
    """``line -> text to split into words`` (sacrebleu's objects for intl and zh)."""
    return _UNSQUEEZED.get(name) or sacrebleu_tokenizer(name)


def _resolve(name: str) -> tuple[str, bool]:
    """(sacrebleu tokenizer name, fold ASCII A–Z first) for a name of :data:`ALL_TOKENIZERS`."""
    if name in _BUILTIN or name in _SACREBLEU_ONLY:
        return name, False
    if name in _FOLDED:
        return _FOLDED[name], True
    raise MetricInputError(f"unknown tokenizer {name!r}; choose one of {', '.join(ALL_TOKENIZERS)}")


@functools.cache
def sacrebleu_tokenizer(name: str) -> Callable[[str], str]:
    """``line -> tokenized line`` for a sacrebleu tokenizer name (``mteval`` is refused).

    ``13a``, ``none`` and ``char`` are this module's; ``intl`` and ``zh`` need sacrebleu."""
    if name in _NATIVE:
        return _NATIVE[name]
    if name not in _SACREBLEU_ONLY:
        choices = ", ".join((*_BUILTIN, *_SACREBLEU_ONLY))
        raise MetricInputError(f"unknown tokenizer {name!r}; choose one of {choices}")
    try:
        import sacrebleu
    except ImportError:
        raise MetricInputError(
            f"tokenizer {name!r} needs sacrebleu: pip install 'deltableu-metrics[sacrebleu]'"
        ) from None
    tok: Callable[[str], str] = sacrebleu.BLEU(tokenize=name).tokenizer
    return tok


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def preprocess(
    lines: Sequence[str], lowercase: bool, *, rstrip: bool = True, fold_ascii: bool = False
) -> list[str]:
    """sacrebleu's segment preprocessing: optional lowercasing, then trailing whitespace removed.

    NIST (mteval-v13a) keeps trailing whitespace (``rstrip=False``: it can change what intl
    splits) and its default normalization folds ASCII A–Z only (``fold_ascii``, after
    ``lowercase``)."""
    out = [s.lower() for s in lines] if lowercase else list(lines)
    if fold_ascii:
        out = [s.translate(_ASCII_LOWER) for s in out]
    return [s.rstrip() for s in out] if rstrip else out


def split_words(text: str, perl: bool = False) -> list[str]:
    """Words of tokenized ``text``: ``str.split()``, or with ``perl`` Perl's ``split /\\s+/``
    (U+001C–U+001F stay inside words, as in mteval-v13a)."""
    if perl and any(c in text for c in _INFO_SEPARATORS):
        return [w for w in _PERL_SPACE.split(text) if w]
    return text.split()


def make_tokenizer(name: str, lowercase: bool) -> Callable[[str], list[str]]:
    """Return ``text -> tokens`` for a name of :data:`ALL_TOKENIZERS`, as NIST, 4-GRR and AMBER
    tokenize (trailing whitespace kept, words split as mteval-v13a splits them: see
    :func:`split_words`); ``lowercase`` applies ``str.lower()`` first, as sacrebleu does.
    Raises ``MetricInputError`` for an unknown name. Every call returns a new list (callers may
    change it; the cached one is shared)."""
    base, fold = _resolve(name)
    tok = _unsqueezed(base)

    def tokenize(text: str) -> list[str]:
        def compute() -> tuple[list[str], str]:
            line = preprocess([text], lowercase, rstrip=False, fold_ascii=fold)[0]
            return split_words(tok(line), perl=True), ""

        # A 3-tuple key with a string: never one of encode's 4-tuple keys of line lists.
        tokens, _ = _JOINED.get((name, lowercase, text), compute)
        return list(tokens)

    return tokenize


def _candidates() -> Iterator[str]:
    return map(chr, itertools.chain.from_iterable(_SEPARATOR_RANGES))


def _pick_separator(lines: Sequence[str]) -> str | None:
    """A private-use character in no line (the first candidate is nearly always free)."""
    first = chr(_SEPARATOR_RANGES[0][0])
    if not any(first in line for line in lines):
        return first
    used = set().union(*map(set, lines))
    return next((c for c in _candidates() if c not in used), None)


def tokenize_joined(lines: Sequence[str], name: str, perl: bool = False) -> tuple[list[str], str]:
    """Tokenize preprocessed ``lines``; returns all tokens with a separator token between lines.

    The result is ``tokens_of_line_0 + [sep] + tokens_of_line_1 + [sep] + …`` (no trailing
    separator) and the separator, a string that is no token of any line. ``perl``: words are
    split as mteval-v13a splits them (:func:`split_words`).
    """
    if name in ("none", "13a"):
        sep = _pick_separator(lines)
        if sep is not None:
            text = f" {sep} ".join(lines)
            return split_words(_rules_13a(text) if name == "13a" else text, perl), sep
    tok = _unsqueezed(name)  # intl looks past line ends, char is cheap: one call a line
    out: list[str] = []
    for k, line in enumerate(lines):
        if k:
            out.append(LINE_BREAK)
        out.extend(split_words(tok(line), perl))
    return out, LINE_BREAK


@dataclass
class Segments:
    """Token ids of many segments, flattened: ``ids[starts[k]:starts[k]+lens[k]]`` is segment k."""

    ids: np.ndarray  # int64, -1 for a token outside the vocabulary
    starts: np.ndarray  # int64
    lens: np.ndarray  # int64

    def remaining(self) -> np.ndarray:
        """For each position, the number of tokens from it to the end of its segment."""
        ends = np.repeat(self.starts + self.lens, self.lens)
        return ends - np.arange(len(self.ids), dtype=np.int64)


def _split_ids(ids: np.ndarray, sep_id: int, n_lines: int) -> Segments:
    is_sep = ids == sep_id
    sep_pos = np.flatnonzero(is_sep)
    if len(sep_pos) != n_lines - 1:
        raise RuntimeError("tokenizer changed the line separator")  # a bug, not bad input
    bounds = np.concatenate(([-1], sep_pos, [len(ids)]))
    lens = np.diff(bounds) - 1
    starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
    return Segments(ids[~is_sep], starts, lens.astype(np.int64))


def encode(
    lines: Sequence[str],
    name: str,
    lowercase: bool,
    vocab: dict[str, int] | None = None,
    *,
    rstrip: bool = True,
    extend: bool = False,
    cache: bool = True,
) -> tuple[Segments, dict[str, int]]:
    """Tokenize ``lines`` (each distinct string once) and map tokens to integer ids.

    With ``vocab=None`` a vocabulary is built from these lines and returned; otherwise tokens
    missing from ``vocab`` get id -1 (they can match nothing) and ``vocab`` is returned as is,
    unless ``extend``: then a copy of ``vocab`` with the new tokens added is returned. Ids go by
    first occurrence, so encoding consecutive parts of a list, each extending the vocabulary of
    the parts before, gives the ids of encoding the whole list at once.
    ``name`` is one of :data:`ALL_TOKENIZERS` (``mteval`` folds ASCII A–Z, then 13a);
    ``cache=False`` keeps the result out of the token cache (a caller that streams a corpus
    part by part). ``rstrip`` is passed to :func:`preprocess`; without it (NIST's reading,
    :func:`encode_nist`) words are also split as mteval-v13a splits them (:func:`split_words`).
    """
    if not lines:
        empty = np.zeros(0, dtype=np.int64)
        return Segments(empty, empty, empty), (vocab if vocab is not None else {})
    _resolve(name)  # an unknown name fails before any work
    distinct = list(dict.fromkeys(lines))
    grow = vocab is None or extend
    # Built here: the caller's vocabulary is never changed (several threads may share it).
    lookup: dict[str, int] = {} if vocab is None else dict(vocab)
    blocks = []
    for a in range(0, len(distinct), ENCODE_LINES):
        block = distinct[a : a + ENCODE_LINES]
        compute = functools.partial(_tokenize_block, block, name, lowercase, rstrip)
        # Only a one-block input is cached: a larger one (a big reference set) is tokenized
        # once, and caching its blocks would only hold the last ones in memory.
        tokens, sep = (
            _JOINED.get((name, lowercase, rstrip, tuple(block)), compute)
            if cache and len(distinct) <= ENCODE_LINES
            else compute()
        )
        blocks.append(_block_ids(tokens, sep, len(block), lookup, grow))
        del tokens  # one block's token strings alive at a time
    segs = _concat(blocks)
    if len(distinct) != len(lines):
        segs = _expand(segs, distinct, lines)
    return segs, (vocab if vocab is not None and not extend else lookup)


# Distinct lines tokenized at once by encode: 750,000 tokens of 15-token lines, some 50 MB of
# Python strings, instead of every line's tokens at once (1.5 GB for 1.6 million lines).
ENCODE_LINES = 50_000


# NIST, 4-GRR and AMBER read text as :func:`make_tokenizer` does: trailing whitespace kept,
# words split on Perl's whitespace.
encode_nist = functools.partial(encode, rstrip=False)


def _tokenize_block(
    block: list[str], name: str, lowercase: bool, rstrip: bool
) -> tuple[list[str], str]:
    base, fold = _resolve(name)
    lines = preprocess(block, lowercase, rstrip=rstrip, fold_ascii=fold)
    return tokenize_joined(lines, base, perl=not rstrip)


def _block_ids(
    tokens: list[str], sep: str, n_lines: int, lookup: dict[str, int], grow: bool
) -> Segments:
    """One block's token ids (-1 unknown); with ``grow``, new tokens are added to ``lookup``
    in order of first occurrence (so the tokens of earlier lines have the smaller ids)."""
    if grow:
        for token in dict.fromkeys(tokens):
            if token != sep and token not in lookup:
                lookup[token] = len(lookup)
    saved = lookup.get(sep)  # a token of another block may be this block's separator
    lookup[sep] = -2  # the separator occurs in no line of this block
    ids = np.fromiter(
        map(lookup.get, tokens, itertools.repeat(-1)), dtype=np.int64, count=len(tokens)
    )
    if saved is None:
        del lookup[sep]
    else:
        lookup[sep] = saved
    return _split_ids(ids, -2, n_lines)


def _concat(blocks: list[Segments]) -> Segments:
    if len(blocks) == 1:
        return blocks[0]
    lens = np.concatenate([b.lens for b in blocks])
    starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
    return Segments(np.concatenate([b.ids for b in blocks]), starts, lens)


_JOINED = TokenCache(limit=2_000_000)


def clear_token_cache() -> None:
    """Forget every tokenized line and line list (a benchmark times each run from cold)."""
    _JOINED.clear()


def _expand(segs: Segments, distinct: list[str], lines: Sequence[str]) -> Segments:
    """Segments of ``distinct`` strings → segments of ``lines`` (which repeat some of them)."""
    where = {s: i for i, s in enumerate(distinct)}
    occ = np.fromiter(map(where.__getitem__, lines), dtype=np.int64, count=len(lines))
    lens = segs.lens[occ]
    starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
    gather = np.repeat(segs.starts[occ] - starts, lens) + np.arange(int(lens.sum()), dtype=np.int64)
    return Segments(segs.ids[gather], starts, lens)
