"""The NIST and ΔNIST metrics (definitions in the package docstring, :mod:`scoring.metrics.nist`).

References are prepared as arrays (:mod:`.tables`); a hypothesis's n-grams are looked up in the
item's sorted key tables with the BLEU family's machinery (:mod:`..ngrams`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base import Metric, MetricInputError, OptionSpec, RefItem, ScoreResult, check_hypotheses
from ..index import BleuIndex, OrderTable
from ..ngrams import Positions, lookup
from ..registry import register
from ..tokenizers import ALL_TOKENIZERS, encode_nist
from ..version import __version__
from .tables import (
    NISTIndex,
    ReferenceCounts,
    check_counts_match,
    check_delta_weights,
    reference_counts,
)

#: BP = exp(-BETA · ln² ratio) is 0.5 at ratio 2/3 (mteval: -log(0.5) / log(1.5)²).
BETA = -math.log(0.5) / math.log(2.0 / 3.0) ** 2


@register
class NIST(Metric):
    """NIST (mteval-v13a): information-weighted n-gram precision, n <= 5, information from all
    references of the test set, average reference length."""

    name = "nist"
    # Information gains are ≥ 0 (ΔNIST's negative matches are clamped in scores_from_stats).
    score_range = (0.0, math.inf)
    display_name = "NIST"
    options = (
        OptionSpec("max_order", int, 5, "largest n-gram order", minimum=1, maximum=9),
        OptionSpec(
            "tokenize",
            str,
            "13a",
            "tokenizer (mteval: lowercase, then 13a)",
            choices=ALL_TOKENIZERS,
        ),
        OptionSpec("lowercase", bool, False, "lowercase before scoring"),
        OptionSpec(
            "mteval_compat",
            bool,
            True,
            "the score mteval-v13a prints (its 0-prefix quirk); --no-mteval-compat: textbook",
        ),
    )

    def __init__(self, **options: Any) -> None:
        """Options: tokenizer name, lowercasing, maximum order (1..9), mteval's 0-quirk."""
        super().__init__(**options)
        self.tokenize = self.opts["tokenize"]
        self.lowercase = self.opts["lowercase"]
        self.order = self.opts["max_order"]
        self.mteval_compat = self.opts["mteval_compat"]
        self._nrefs: int | str = 1

    # -- references ---------------------------------------------------------------------------
    def prepare(self, items: Sequence[RefItem]) -> NISTIndex:
        """Tokenize every reference once, index its n-grams and compute the test set's
        information weights (arrays, see :mod:`.tables`)."""
        return self.index_from_counts(self.reference_counts(items))

    def reference_counts(self, items: Sequence[RefItem]) -> ReferenceCounts:
        """Every reference tokenized and indexed: what NIST and ΔNIST indexes are made from
        (made once, it serves both, with either ``mteval_compat``)."""
        return reference_counts(items, self.tokenize, self.lowercase, self.order)

    def index_from_counts(self, counts: ReferenceCounts) -> NISTIndex:
        """This metric's index from reference counts made with the same tokenizer and order."""
        check_counts_match(counts, self.tokenize, self.lowercase, self.order)
        self._check_weights(counts.tables)
        self._nrefs = counts.nrefs
        return NISTIndex(
            counts.tables, counts.info(self.mteval_compat), counts.nrefs, self.mteval_compat
        )

    def _check_weights(self, tables: BleuIndex) -> None:
        """Checks of the reference weights (NIST ignores weights: none)."""

    def accepts_prepared(self, prepared: Any) -> bool:
        """A :class:`NISTIndex` of the same tokenizer, case and compat setting, order ≥ N."""
        return isinstance(prepared, NISTIndex) and prepared.compatible(
            self.tokenize, self.lowercase, self.order, self.mteval_compat
        )

    def prepared_slice(self, prepared: NISTIndex, start: int, stop: int) -> NISTIndex:
        """Items ``start:stop``; information weights stay those of the whole test set."""
        if not isinstance(prepared, NISTIndex) or not prepared.compatible(
            self.tokenize, self.lowercase, self.order, self.mteval_compat
        ):
            raise MetricInputError("the reference index was built with other options")
        return prepared.subset(start, stop)

    # -- hypotheses ---------------------------------------------------------------------------
    def stats(self, hyps: Sequence[str], prepared: NISTIndex) -> np.ndarray:
        """Rows ``[num_1..num_N, den_1..den_N, hyp_len, ref_len]`` for each item (float64).

        ``num_n`` is Σ over the item's distinct hypothesis n-grams found in its references of
        Info(g) · matched(g) (Doddington 2002, sec. 3; ΔNIST: weighted, see the package doc);
        ``den_n`` the number of hypothesis n-grams times the item's largest weight."""
        check_hypotheses(hyps, prepared.ids)
        self._nrefs = prepared.nrefs
        tables, order, n = prepared.tables, self.order, len(hyps)
        segs, _ = encode_nist(hyps, self.tokenize, self.lowercase, vocab=tables.vocab)
        pos = Positions.of(segs, np.arange(n, dtype=np.int64))
        entries = lookup(pos, [t.keys for t in tables.orders[:order]], tables.vocab_size)
        out = np.zeros((n, 2 * order + 2))
        for k, entry in enumerate(entries):
            out[:, k] = self._matched_info(
                tables.orders[k], prepared.entry_info[k], entry, pos.item_of_pos, n
            )
        size, max_weight = segs.lens, prepared.max_weight
        # Plain NIST too scales by the largest weight, as the dict-based code did (1 for
        # unrated references); whether NIST should ignore it is an open question, not changed
        # here so that every stored statistic stays the same.
        for k in range(order):
            out[:, order + k] = np.maximum(size - k, 0) * max_weight
        out[:, 2 * order] = size
        out[:, 2 * order + 1] = prepared.ref_len
        return out

    def _matched_info(
        self,
        table: OrderTable,
        info: np.ndarray,
        entry: np.ndarray,
        item_of_pos: np.ndarray,
        n_items: int,
    ) -> np.ndarray:
        """Per item, Σ Info(g) · matched(g) over the distinct hypothesis n-grams g of one order
        found in the item's references."""
        found = np.flatnonzero(entry >= 0)
        e, first, count = np.unique(entry[found], return_index=True, return_counts=True)
        value = info[e] * self._matched(table, e, count)
        # Summed per item in the order of first occurrence in the hypothesis, the order of the
        # former per-item loop: the same float additions in the same order, the same sums.
        seq = np.argsort(first)
        return np.bincount(item_of_pos[found[first[seq]]], weights=value[seq], minlength=n_items)

    @staticmethod
    def _matched(table: OrderTable, entry: np.ndarray, count: np.ndarray) -> np.ndarray:
        """NIST's clipped count min(c, max_j #g(r_j)) of each entry's hypothesis count c."""
        out: np.ndarray = np.minimum(count, table.max_count[entry]).astype(np.float64)
        return out

    # -- scores -------------------------------------------------------------------------------
    def scores_from_stats(self, summed: np.ndarray) -> np.ndarray:
        """NIST for summed rows of shape ``(..., 2N + 2)``; result shape ``(...)``."""
        summed = np.asarray(summed, dtype=np.float64)
        order = self.order
        num = np.maximum(summed[..., :order], 0.0)
        den = summed[..., order : 2 * order]
        safe = np.where(den > 0, den, 1.0)
        gain = np.where(den > 0, num / safe, 0.0).sum(axis=-1)
        out: np.ndarray = gain * self._brevity(summed[..., 2 * order], summed[..., 2 * order + 1])
        return out

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
    """Discriminative NIST: matched information weighted by the best-rated reference
    containing each n-gram (ΔBLEU's paper definition); equals NIST with all weights 1."""

    name = "dnist"
    display_name = "ΔNIST"
    uses_weights = True

    def _check_weights(self, tables: BleuIndex) -> None:
        # Counts made by NIST (which ignores weights) may be shared with ΔNIST: checked here.
        check_delta_weights(tables)

    def accepts_prepared(self, prepared: Any) -> bool:
        """As NIST's, and the weights must suit ΔNIST (an index made by NIST is not checked)."""
        if not super().accepts_prepared(prepared):
            return False
        try:
            check_delta_weights(prepared.tables)
        except MetricInputError:
            return False
        return True

    @staticmethod
    def _matched(table: OrderTable, entry: np.ndarray, count: np.ndarray) -> np.ndarray:
        """P(c) = max_j w_j · min(c, #g(r_j)) over the references containing the n-gram."""
        return table.paper(entry, count)

    def _def_part(self) -> list[str]:
        return ["def:paper"]
