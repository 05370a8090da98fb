"""NIST (Doddington 2002) exactly as NIST's ``mteval-v13a.pl`` computes it, and weighted ΔNIST.

Definition (mteval-v13a ``compute_ngram_info``, ``score_segment``, ``nist_score``; see
``papers/004…`` for a walk through that script):

* Information weight of an n-gram, counted over **all references of the whole test set**::

      Info(w1..wn) = -log2( count(w1..wn) / count(w1..wn-1) )   (unigrams: / total ref tokens)

* Per item, matched information of order n = Σ over distinct hypothesis n-grams g found in some
  reference of ``Info(g) · min(#g(h), max_j #g(r_j))`` (clipped against the maximum count over
  the item's references).
* ``score = Σ_{n=1..5} (Σ_i info_n,i / max(Σ_i |n-grams_n(h_i)|, 1)) · BP``,
  ``BP = exp(-β · ln²(min(c / r, 1)))`` with ``β = -ln 0.5 / ln²(2/3) = 4.21617…`` (BP = 0.5 at
  ratio 2/3), ``c`` = total hypothesis words, ``r`` = total *average* reference length.

Options: ``tokenize`` ("13a" = mteval ``-c``, case kept; "mteval" = mteval's default
normalization, i.e. the v11b/v13a rules after folding ASCII A–Z to a–z, exactly as mteval run
without ``-c``; "intl", "char", "zh", "none" = sacrebleu's tokenizers), ``lowercase`` (Python
``str.lower()`` before tokenizing, as sacrebleu), ``order`` (5) and ``mteval_compat``.

``mteval_compat`` (off by default) reproduces a Perl truthiness quirk of mteval: the
information weight is computed as ``-log2(count(g) / total ref tokens)`` whenever the (n-1)-gram
prefix *string* is ``"0"``, i.e. for every bigram whose first token is ``0`` (a trigram
``0 x y`` has the prefix ``"0 x"``, which Perl treats as true, so only bigrams are affected).
With it on, scores equal mteval's printed scores; with it off, they are the textbook values.

ΔNIST (``DeltaNIST``, registry name ``dnist``) weights matched information like ΔBLEU's paper
definition (``DESIGN.md``; Galley et al. 2015, eq. 1): per item and order n,
``num_n = Σ_{g distinct in h} Info(g) · max_{j: g ∈ r_j} w_j · min(#g(h), #g(r_j))`` and
``den_n = (max_j w_j) · |n-grams_n(h)|``; the corpus ratio is ``max(Σ num_n, 0) / Σ den_n``.
With every weight 1 it equals NIST exactly.

Choices where the sources leave room (documented here as STYLE.md asks):

* Items with different numbers of references: mteval needs the same number for every segment
  and uses total reference words / number of reference sets; we sum each item's mean reference
  length, which is the same thing when every item has the same number of references.
* Information weights count every reference whatever its weight (ΔNIST too), as the brevity
  penalty of ΔBLEU uses every reference (DESIGN.md).
* Empty corpus or zero total reference length: BP = 1 (mteval divides by zero there);
  an order with no hypothesis n-grams contributes 0 (mteval: division by max(count, 1)).
* ΔNIST needs one reference with w > 0 per item, like ΔBLEU, and weights in [-1, 1].
"""

from __future__ import annotations

import functools
import math
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, ClassVar

import numpy as np

from . import __version__
from .base import Metric, MetricInputError, OptionSpec, RefItem, ScoreResult
from .registry import register

#: BP = exp(-BETA · ln² ratio) is 0.5 at ratio 2/3 (mteval: -log(0.5) / log(1.5)²).
BETA = -math.log(0.5) / math.log(2.0 / 3.0) ** 2

_SACREBLEU_TOKENIZERS = {
    "13a": "tokenizer_13a.Tokenizer13a",
    "intl": "tokenizer_intl.TokenizerV14International",
    "char": "tokenizer_char.TokenizerChar",
    "zh": "tokenizer_zh.TokenizerZh",
    "none": "tokenizer_none.NoneTokenizer",
}
TOKENIZERS = (*_SACREBLEU_TOKENIZERS, "mteval")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

Ngram = tuple[str, ...]


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


def clear_token_cache() -> None:
    """Forget every tokenized string (a benchmark times each metric from cold)."""
    for tokenize in _TOKENIZER_CACHES.values():
        tokenize.cache_clear()


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


def ngrams(tokens: Sequence[str], order: int) -> list[Ngram]:
    """All n-grams of ``tokens`` for n = 1..order, as token tuples (zip builds them in C)."""
    out: list[Ngram] = []
    for n in range(1, min(order, len(tokens)) + 1):
        out.extend(zip(*(tokens[k:] for k in range(n)), strict=False))  # shifted copies
    return out


def count_ngrams(tokens: Sequence[str], order: int) -> Counter[Ngram]:
    """All n-grams of ``tokens`` for n = 1..order, as a Counter of token tuples."""
    return Counter(ngrams(tokens, order))


@dataclass
class ReferenceCounts:
    """Every reference's n-gram counts with its weight, per item, and the test set's totals."""

    ids: list[str]
    per_item: list[list[tuple[float, Counter[Ngram]]]]
    totals: Counter[Ngram]
    tot_words: int
    ref_len: np.ndarray
    max_weight: np.ndarray
    nrefs: int | str
    signature: tuple[str, bool, int]  # tokenizer, lowercase, order
    _info: dict[bool, dict[Ngram, float]] = field(default_factory=dict, repr=False)

    def info(self, mteval_compat: bool) -> dict[Ngram, float]:
        """Information weight of every reference n-gram (computed once per compat setting).

        Info(g) = -log2(count(g) / count(prefix)), the prefix count being the total number of
        reference words for unigrams (and, with ``mteval_compat``, for a bigram whose first
        token is ``0``: see the module docstring)."""
        if mteval_compat not in self._info:
            grams = list(self.totals)
            counts = np.fromiter(self.totals.values(), dtype=np.float64, count=len(grams))
            # The count each n-gram's information is relative to, looked up by its prefix:
            # the number of reference words for the empty prefix (and "0" in compat mode).
            prefix_count = {**self.totals, (): self.tot_words}
            if mteval_compat:
                prefix_count[("0",)] = self.tot_words
            prefixes = map(operator.itemgetter(slice(None, -1)), grams)
            prefix = np.fromiter(
                map(prefix_count.__getitem__, prefixes), dtype=np.float64, count=len(grams)
            )
            values = -np.log(counts / prefix) / math.log(2)
            self._info[mteval_compat] = dict(zip(grams, values.tolist(), strict=True))
        return self._info[mteval_compat]


@dataclass
class NISTIndex:
    """Prepared references (picklable): info weights and per-item reference n-grams.

    ``ref_ngrams[i]`` maps an n-gram to its max count over the item's references (NIST) or to
    the ``(weight, count)`` pairs of the references containing it (ΔNIST).
    """

    ids: list[str]
    info: dict[Ngram, float]
    ref_ngrams: list[dict[Ngram, Any]]
    ref_len: np.ndarray
    max_weight: np.ndarray
    nrefs: int | str


@register
class NIST(Metric):
    """NIST as mteval-v13a computes it (stats: num_1..N, den_1..N, hyp length, ref length)."""

    name: ClassVar[str] = "nist"
    display_name: ClassVar[str] = "NIST"
    description: ClassVar[str] = (
        "NIST (mteval-v13a): information-weighted n-gram precision, n <= 5, "
        "information from all references of the test set, average reference length."
    )
    higher_is_better: ClassVar[bool] = True
    uses_weights: ClassVar[bool] = False
    options: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("max_order", int, 5, "largest n-gram order", minimum=1, maximum=9),
        OptionSpec(
            "tokenize", str, "13a", "tokenizer (mteval: lowercase, then 13a)", choices=TOKENIZERS
        ),
        OptionSpec("lowercase", bool, False, "lowercase before scoring"),
        OptionSpec(
            "mteval_compat", bool, False, "reproduce mteval's 0-prefix quirk (see the docstring)"
        ),
    )

    def __init__(self, **options: Any) -> None:
        """Options: tokenizer name, lowercasing, maximum order (1..9), mteval's 0-quirk."""
        super().__init__(**options)
        self.tokenize = self.opts["tokenize"]
        self.lowercase = self.opts["lowercase"]
        self.order = self.opts["max_order"]
        self.mteval_compat = self.opts["mteval_compat"]
        self._tok = make_tokenizer(self.tokenize, self.lowercase)
        self._nrefs: int | str = 1

    # -- references ---------------------------------------------------------------------------
    def prepare(self, items: Sequence[RefItem]) -> NISTIndex:
        """Tokenize every reference once and compute the test set's information weights."""
        return self.index_from_counts(self.reference_counts(items))

    def reference_counts(self, items: Sequence[RefItem]) -> ReferenceCounts:
        """Every reference tokenized and counted: what NIST and ΔNIST indexes are built from
        (build it once with the stricter metric's checks to index both)."""
        totals: Counter[Ngram] = Counter()
        tot_words = 0
        per_item: list[list[tuple[float, Counter[Ngram]]]] = []
        ref_len = np.zeros(len(items))
        max_weight = np.zeros(len(items))
        nref_set = set()
        for k, item in enumerate(items):
            self._check_refs(item)
            refs = []
            for ref in item.refs:
                toks = self._tok(ref.text)
                grams = ngrams(toks, self.order)
                counts = Counter(grams)
                totals.update(grams)  # counting a list runs in C; adding a Counter does not
                tot_words += len(toks)
                ref_len[k] += len(toks)
                refs.append((ref.weight, counts))
            ref_len[k] /= len(item.refs)
            max_weight[k] = max(r.weight for r in item.refs)
            nref_set.add(len(item.refs))
            per_item.append(refs)
        nrefs: int | str = nref_set.pop() if len(nref_set) == 1 else "var"
        ids = [it.id for it in items]
        signature = (self.tokenize, self.lowercase, self.order)
        return ReferenceCounts(
            ids, per_item, totals, tot_words, ref_len, max_weight, nrefs, signature
        )

    def index_from_counts(self, counts: ReferenceCounts) -> NISTIndex:
        """This metric's index from reference counts made with the same tokenizer and order."""
        if counts.signature != (self.tokenize, self.lowercase, self.order):
            raise MetricInputError("reference counts were made with another tokenizer or order")
        self._check_counts(counts)
        self._nrefs = counts.nrefs
        ref_ngrams = [self._merge(refs) for refs in counts.per_item]
        return NISTIndex(
            counts.ids, counts.info(self.mteval_compat), ref_ngrams, counts.ref_len,
            counts.max_weight, counts.nrefs,
        )  # fmt: skip

    def _check_refs(self, item: RefItem) -> None:
        if not item.refs:
            raise MetricInputError(f"item {item.id!r} has no reference")

    def _check_counts(self, counts: ReferenceCounts) -> None:
        """Checks of a metric that must hold for reference counts made by another one."""

    @staticmethod
    def _merge(refs: list[tuple[float, Counter[Ngram]]]) -> dict[Ngram, Any]:
        merged: dict[Ngram, int] = {}
        for _, counts in refs:
            for g, c in counts.items():
                if c > merged.get(g, 0):
                    merged[g] = c
        return merged

    def prepared_slice(self, prepared: NISTIndex, start: int, stop: int) -> NISTIndex:
        """Items ``start:stop``; information weights stay those of the whole test set."""
        return NISTIndex(
            prepared.ids[start:stop], prepared.info, prepared.ref_ngrams[start:stop],
            prepared.ref_len[start:stop], prepared.max_weight[start:stop], prepared.nrefs,
        )  # fmt: skip

    # -- hypotheses ---------------------------------------------------------------------------
    def stats(self, hyps: Sequence[str], prepared: NISTIndex) -> np.ndarray:
        """Rows ``[num_1..num_N, den_1..den_N, hyp_len, ref_len]`` for each item (float64)."""
        if len(hyps) != len(prepared.ids):
            raise MetricInputError(
                f"{len(hyps)} hypotheses for {len(prepared.ids)} items (line count mismatch)"
            )
        self._nrefs = prepared.nrefs
        order = self.order
        out = np.zeros((len(hyps), 2 * order + 2))
        for k, hyp in enumerate(hyps):
            if not isinstance(hyp, str):
                raise MetricInputError(f"item {prepared.ids[k]!r}: hypothesis is not a string")
            toks = self._tok(hyp)
            size = len(toks)
            row = out[k]
            for g, c in count_ngrams(toks, order).items():
                found = prepared.ref_ngrams[k].get(g)
                if found is not None:
                    row[len(g) - 1] += prepared.info[g] * self._matched(c, found)
            for n in range(1, order + 1):
                row[order + n - 1] = max(size - n + 1, 0) * prepared.max_weight[k]
            row[2 * order] = size
            row[2 * order + 1] = prepared.ref_len[k]
        return out

    @staticmethod
    def _matched(count: int, found: Any) -> float:
        return float(min(count, found))

    # -- scores -------------------------------------------------------------------------------
    def scores_from_stats(self, summed: np.ndarray) -> np.ndarray:
        """NIST for summed rows of shape ``(..., 2N + 2)``; result shape ``(...)``."""
        summed = np.asarray(summed, dtype=np.float64)
        order = self.order
        num = np.maximum(summed[..., :order], 0.0)
        den = summed[..., order : 2 * order]
        safe = np.where(den > 0, den, 1.0)
        gain = np.where(den > 0, num / safe, 0.0).sum(axis=-1)
        return gain * self._brevity(summed[..., 2 * order], summed[..., 2 * order + 1])

    @staticmethod
    def _brevity(hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
        ratio = np.where(ref_len > 0, hyp_len / np.where(ref_len > 0, ref_len, 1.0), 1.0)
        ratio = np.minimum(ratio, 1.0)
        with np.errstate(divide="ignore"):
            log_ratio = np.log(np.where(ratio > 0, ratio, 1.0))
        return np.where(ratio > 0, np.exp(-BETA * log_ratio**2), 0.0)

    def result(self, summed: np.ndarray, nrefs: int | str | None = None) -> ScoreResult:
        """Score, per-order information gains, BP and lengths for one corpus's summed stats.

        ``nrefs`` (for the signature) defaults to the last prepared or scored reference index.
        """
        summed = np.asarray(summed, dtype=np.float64)
        order = self.order
        den = summed[order : 2 * order]
        gains = [
            float(max(x, 0.0) / d) if d > 0 else 0.0
            for x, d in zip(summed[:order], den, strict=True)
        ]
        extras = {
            "info_per_order": gains,
            "bp": float(self._brevity(summed[2 * order], summed[2 * order + 1])),
            "sys_len": float(summed[2 * order]),
            "ref_len": float(summed[2 * order + 1]),
        }
        score = float(self.scores_from_stats(summed))
        return ScoreResult(score, self.signature(self._nrefs if nrefs is None else nrefs), extras)

    def signature(self, nrefs: int | str) -> str:
        """E.g. ``nist|nrefs:1|tok:13a|case:mixed|order:5|ref:avg|compat:none|version:…``."""
        case = "lc" if self.lowercase else ("lc-ascii" if self.tokenize == "mteval" else "mixed")
        parts = [
            self.name,
            *self._def_part(),
            f"nrefs:{nrefs}",
            f"tok:{self.tokenize}",
            f"case:{case}",
            f"order:{self.order}",
            "ref:avg",
            f"compat:{'mteval-v13a' if self.mteval_compat else 'none'}",
            f"version:{__version__}",
        ]
        return "|".join(parts)

    def _def_part(self) -> list[str]:
        return []


@register
class DeltaNIST(NIST):
    """ΔNIST: NIST whose matched information is weighted like ΔBLEU's paper numerator."""

    name: ClassVar[str] = "dnist"
    display_name: ClassVar[str] = "ΔNIST"
    description: ClassVar[str] = (
        "Discriminative NIST: matched information weighted by the best-rated reference "
        "containing each n-gram (ΔBLEU's paper definition); equals NIST with all weights 1."
    )
    uses_weights: ClassVar[bool] = True

    def _check_refs(self, item: RefItem) -> None:
        super()._check_refs(item)
        self._check_weights(item.id, [ref.weight for ref in item.refs])

    def _check_counts(self, counts: ReferenceCounts) -> None:
        # Counts made by NIST (which ignores weights) may be shared with ΔNIST: check here too.
        for item_id, refs in zip(counts.ids, counts.per_item, strict=True):
            self._check_weights(item_id, [weight for weight, _ in refs])

    @staticmethod
    def _check_weights(item_id: str, weights: list[float]) -> None:
        for weight in weights:
            if not -1.0 <= weight <= 1.0:
                raise MetricInputError(f"item {item_id!r}: weight {weight} not in [-1, 1]")
        if max(weights) <= 0:
            raise MetricInputError(f"item {item_id!r} needs one reference with weight > 0")

    @staticmethod
    def _merge(refs: list[tuple[float, Counter[Ngram]]]) -> dict[Ngram, Any]:
        merged: dict[Ngram, list[tuple[float, int]]] = {}
        for weight, counts in refs:
            for g, c in counts.items():
                merged.setdefault(g, []).append((weight, c))
        return {g: tuple(pairs) for g, pairs in merged.items()}

    @staticmethod
    def _matched(count: int, found: Any) -> float:
        return max(w * min(count, c) for w, c in found)

    def _def_part(self) -> list[str]:
        return ["def:paper"]
