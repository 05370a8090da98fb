"""References as token ids, for the metrics that align words (4-GRR, AMBER).

Both metrics compare a hypothesis with each reference of its item word by word, so all they
need of the references is their tokens. :class:`TokenIdRefs` keeps every reference's tokens as
ids into one vocabulary, in flat arrays: an index file stores them (tokenized once, when the
index is built) and a worker memory-maps them, so scoring a chunk tokenizes its hypotheses only
and reads its own items' references, whatever the size of the test set.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .arrayfile import PackedStrings, pack_strings
from .base import Metric, MetricInputError, RefItem, ScoreResult, check_hypotheses
from .index import register_prepared_kind
from .refset import RefItems, item_ids
from .tokenizers import encode_nist
from .version import __version__


@dataclass
class TokenIdRefs:
    """Tokenized references: item ``k`` (of this view) owns references ``ptr[k]:ptr[k+1]``;
    reference ``r``'s tokens are ``tokens[starts[r]:starts[r] + lens[r]]``, ids into ``words``.
    A slice shares the arrays and narrows ``ptr`` (so reference numbers stay those of the
    whole set)."""

    kind: ClassVar[str] = "token-ids"

    ids: list[str]
    ptr: np.ndarray
    starts: np.ndarray
    lens: np.ndarray
    tokens: np.ndarray
    words: Sequence[str]  # a list, or PackedStrings over an index file
    tokenize: str
    lowercase: bool
    nrefs: int | str
    _lookup: dict[str, int] | None = field(default=None, repr=False, compare=False)
    _decoded: list[str] | None = field(default=None, repr=False, compare=False)

    def slice(self, start: int, stop: int) -> TokenIdRefs:
        """Items ``start:stop``, sharing this object's arrays and vocabulary caches."""
        part = TokenIdRefs(
            self.ids[start:stop],
            self.ptr[start : stop + 1],
            self.starts,
            self.lens,
            self.tokens,
            self.words,
            self.tokenize,
            self.lowercase,
            self.nrefs,
        )
        part._lookup, part._decoded = self.lookup(), self._decoded
        return part

    def lookup(self) -> dict[str, int]:
        """Token → id (built on first use, then shared by slices)."""
        if self._lookup is None:
            self._lookup = {word: k for k, word in enumerate(self.vocabulary())}
        return self._lookup

    def vocabulary(self) -> list[str]:
        """Every token, by id (decoded on first use)."""
        if self._decoded is None:
            words = self.words
            self._decoded = words.decode_all() if isinstance(words, PackedStrings) else list(words)
        return self._decoded

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """(item, reference) of every reference of the view, items in order, each item's
        references in their order."""
        counts = np.diff(self.ptr)
        item = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        first = int(self.ptr[0]) if len(self.ptr) else 0
        return item, np.arange(first, first + len(item), dtype=np.int64)

    def token_lists(self, refs: np.ndarray) -> list[list[str]]:
        """The tokens of references ``refs`` (reference numbers), as strings."""
        vocab = self.vocabulary()
        return [
            [vocab[t] for t in self.tokens[a : a + n].tolist()]
            for a, n in zip(self.starts[refs].tolist(), self.lens[refs].tolist(), strict=True)
        ]

    def to_arrays(self, out: dict[str, np.ndarray]) -> dict[str, Any]:
        """Store the arrays in ``out``; returns the index file header's entry."""
        first = int(self.ptr[0])
        out["tokens.ptr"] = self.ptr - first
        refs = slice(first, int(self.ptr[-1]))
        base = int(self.starts[first]) if refs.stop > refs.start else 0
        out["tokens.starts"] = self.starts[refs] - base
        out["tokens.lens"], out["tokens.ids"] = self.lens[refs], self.tokens[base:]
        pack_strings("tokens.vocab", self.words, out)
        return {"tokenize": self.tokenize, "lowercase": self.lowercase, "nrefs": self.nrefs}

    @classmethod
    def from_arrays(cls, meta: dict[str, Any], item_ids: list[str], arrays: Any) -> TokenIdRefs:
        """The references stored by :meth:`to_arrays` (arrays stay memory-mapped)."""
        words = PackedStrings(arrays["tokens.vocab.blob"], arrays["tokens.vocab.ends"])
        return cls(
            item_ids,
            arrays["tokens.ptr"],
            arrays["tokens.starts"],
            arrays["tokens.lens"],
            arrays["tokens.ids"],
            words,
            meta["tokenize"],
            bool(meta["lowercase"]),
            meta["nrefs"],
        )


register_prepared_kind(TokenIdRefs.kind, TokenIdRefs.from_arrays)


def tokenize_references(items: Sequence[RefItem], tokenize: str, lowercase: bool) -> TokenIdRefs:
    """Every reference of ``items`` tokenized (as :func:`..nist.make_tokenizer` does) and
    numbered; nrefs is "var" when items have different numbers of references. An item without
    references is an error."""
    texts: Sequence[str]
    if isinstance(items, RefItems):  # flat already, every item with a reference
        texts, ptr = items.refset.texts, items.refset.ptr.tolist()
    else:
        texts, ptr = [], [0]
        for item in items:
            if not item.refs:
                raise MetricInputError(f"item {item.id!r} has no reference")
            texts.extend(ref.text for ref in item.refs)
            ptr.append(len(texts))
    segs, vocab = encode_nist(texts, tokenize, lowercase)
    counts = set(np.diff(ptr).tolist())
    nrefs: int | str = counts.pop() if len(counts) == 1 else "var"
    return TokenIdRefs(
        item_ids(items),
        np.array(ptr, dtype=np.int64),
        segs.starts,
        segs.lens,
        segs.ids.astype(np.int32),
        list(vocab),
        tokenize,
        lowercase,
        nrefs,
    )


def hypothesis_tokens(
    hyps: Sequence[Any], refs: TokenIdRefs, extend: bool = False
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The hypotheses tokenized as the references were: flat ids, lengths, and the tokens no
    reference has. Those get id -1 (they match nothing), or with ``extend`` ids from the size of
    the vocabulary on, in the order of the list returned. A hypothesis that is not a string is
    an error naming its item."""
    check_hypotheses(hyps, refs.ids)
    known = refs.lookup()
    segs, lookup = encode_nist(list(hyps), refs.tokenize, refs.lowercase, known, extend=extend)
    new = list(lookup)[len(known) :] if extend else []
    return segs.ids, segs.lens, new


class TokenIdMetric(Metric):
    """What the word-aligning metrics share: options ``tokenize`` and ``lowercase``, references
    prepared as :class:`TokenIdRefs`, usable by any metric that tokenizes alike, sliced in
    place."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.tokenize = self.opts["tokenize"]
        self.lowercase = self.opts["lowercase"]
        self._nrefs: int | str = 1

    def prepare(self, items: Sequence[RefItem]) -> TokenIdRefs:
        """Tokenize every reference once."""
        prepared = tokenize_references(items, self.tokenize, self.lowercase)
        self._nrefs = prepared.nrefs
        return prepared

    def accepts_prepared(self, prepared: Any) -> bool:
        """References tokenized alike (by the other word-aligning metric, say) serve as is."""
        return isinstance(prepared, TokenIdRefs) and (prepared.tokenize, prepared.lowercase) == (
            self.tokenize,
            self.lowercase,
        )

    def prepared_slice(self, prepared: TokenIdRefs, start: int, stop: int) -> TokenIdRefs:
        return prepared.slice(start, stop)

    def result(self, summed: np.ndarray, nrefs: int | str | None = None) -> ScoreResult:
        """Score, the metric's :meth:`result_extras` and signature; ``nrefs`` defaults to that
        of the references last prepared or scored."""
        summed = np.asarray(summed, dtype=np.float64)
        extras = self.result_extras(summed)
        score = float(self.scores_from_stats(summed))
        return ScoreResult(score, self.signature(self._nrefs if nrefs is None else nrefs), extras)

    @abstractmethod
    def result_extras(self, summed: np.ndarray) -> dict[str, Any]:
        """The parts of the score of one corpus's summed statistics, for the result."""

    def signature(self, nrefs: int | str) -> str:
        """``name|nrefs:N|tok:T|case:C|…|version:V``, the metric's :meth:`signature_fields`
        after the tokenization."""
        case = "lc" if self.lowercase else "mixed"
        head = [self.name, f"nrefs:{nrefs}", f"tok:{self.tokenize}", f"case:{case}"]
        return "|".join([*head, *self.signature_fields(), f"version:{__version__}"])

    @abstractmethod
    def signature_fields(self) -> list[str]:
        """The metric's own signature parts (its settings, which reference it scores)."""
