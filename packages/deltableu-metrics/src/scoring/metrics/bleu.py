"""BLEU (Papineni et al. 2002, as sacrebleu's ``corpus_bleu``) and ΔBLEU (Galley et al. 2015).

Statistics rows follow sacrebleu: ``[sys_len, ref_len, correct_1..N, total_1..N]``. For ΔBLEU
``correct_n`` is the weighted numerator of sec. 3 (which may be negative for one item) and
``total_n`` is (max_j w_ij) · |n-grams(h_i)|; the corpus score clamps a negative summed
numerator to 0. With every weight 1 both definitions equal BLEU exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Metric, MetricInputError, OptionSpec, RefItem, ScoreResult
from .bleu_math import SMOOTH_METHODS, BleuParts, brevity_penalty, compute_bleu
from .index import BleuIndex, build_bleu_index
from .matching import REF_LENGTH_RULES, MatchCounts, match_direct, match_index
from .refset import RefSet
from .registry import register
from .tokenizers import TOKENIZERS
from .version import __version__

MAX_ORDER_LIMIT = 9
# Items scored at once by the direct path: 2,000 items × 16 references of 15 tokens keep some
# 60 MB of arrays alive, instead of 300 MB for 10,000 items.
DIRECT_ITEMS = 2000


def common_options(
    max_order: int, smooth: str, smooth_value: float | None, effective_order: bool = False
) -> tuple[OptionSpec, ...]:
    """The options every BLEU-family metric has, with per-metric defaults."""
    return (
        OptionSpec("max_order", int, max_order, "maximum n-gram order", minimum=1, maximum=9),
        OptionSpec("tokenize", str, "13a", "sacrebleu tokenizer", choices=TOKENIZERS),
        OptionSpec("lowercase", bool, False, "lowercase before tokenizing"),
        OptionSpec("smooth", str, smooth, "smoothing method (sacrebleu)", choices=SMOOTH_METHODS),
        OptionSpec(
            "smooth_value",
            float,
            smooth_value,
            "value for floor / add-k smoothing (default: sacrebleu's, 0.1 floor, 1 add-k)",
            minimum=0,
        ),
        OptionSpec(
            "ref_length",
            str,
            "closest",
            "brevity-penalty reference length",
            choices=REF_LENGTH_RULES,
        ),
        OptionSpec(
            "effective_order",
            bool,
            effective_order,
            "ignore orders with no hypothesis n-gram (sacrebleu's effective_order)",
        ),
    )


class BleuFamily(Metric):
    """Shared machinery: the reference index, per-item counts, signatures and result fields."""

    definition: str = "counts"  # what a matched n-gram earns, see matching.py
    item_local = True  # every row is its item's (see stats_direct)
    score_range = (0.0, 100.0)  # negative matches (ΔBLEU) are clamped to 0 in compute_bleu
    # BLEU's own defaults; metrics that smooth or add options replace the tuple.
    options = common_options(4, "exp", None)

    @property
    def max_order(self) -> int:
        """The maximum n-gram order N."""
        return int(self.opts["max_order"])

    def prepare(self, items: Sequence[RefItem]) -> BleuIndex:
        """Tokenize and index the references (sec. 3: per-item n-gram → earnable amount)."""
        return build_bleu_index(
            items, self.opts["tokenize"], self.opts["lowercase"], self.max_order
        )

    def accepts_prepared(self, prepared: Any) -> bool:
        """A :class:`BleuIndex` built with the same tokenizer and case, of order ≥ N."""
        return isinstance(prepared, BleuIndex) and prepared.compatible(
            self.opts["tokenize"], self.opts["lowercase"], self.max_order
        )

    def prepared_slice(self, prepared: Any, start: int, stop: int) -> BleuIndex:
        """The index of items ``start:stop`` (see :meth:`BleuIndex.subset`)."""
        if not self.accepts_prepared(prepared):
            raise MetricInputError("the reference index was built with other options")
        index: BleuIndex = prepared
        return index.subset(start, stop)

    def counts(self, hyps: Sequence[str], prepared: BleuIndex) -> MatchCounts:
        """Per-item counts against a prebuilt index."""
        if not self.accepts_prepared(prepared):
            raise MetricInputError("the reference index was built with other options")
        return match_index(hyps, prepared, self.max_order, self.definition, self.opts["ref_length"])

    def counts_direct(
        self, hyps: Sequence[str], items: Sequence[RefItem] | RefSet, cache: bool = True
    ) -> MatchCounts:
        """Per-item counts straight from the references (no full index)."""
        return match_direct(
            hyps,
            items if isinstance(items, RefSet) else RefSet.of(items),
            self.opts["tokenize"],
            self.opts["lowercase"],
            self.max_order,
            self.definition,
            self.opts["ref_length"],
            cache,
        )

    def rows(self, mc: MatchCounts, item_ids: Sequence[str]) -> np.ndarray:
        """Statistics rows from counts (see the module docstring)."""
        return np.column_stack([mc.hyp_len, mc.ref_len, mc.correct, mc.total]).astype(np.float64)

    def stats(self, hyps: Sequence[str], prepared: Any) -> np.ndarray:
        """Per-item statistics rows against the prepared index."""
        return self.rows(self.counts(hyps, prepared), prepared.item_ids)

    def stats_direct(self, hyps: Sequence[str], items: Sequence[RefItem]) -> np.ndarray:
        """Per-item statistics rows without building a full index (same numbers).

        A large corpus is scored :data:`DIRECT_ITEMS` items at a time (every row depends on its
        own item only), so memory stays flat whatever the corpus size."""
        refs = RefSet.of(items)
        if refs.n_items <= DIRECT_ITEMS or len(hyps) != refs.n_items:
            return self.rows(self.counts_direct(hyps, refs), refs.item_ids)
        parts = []
        for a in range(0, refs.n_items, DIRECT_ITEMS):
            b = min(a + DIRECT_ITEMS, refs.n_items)
            part = refs.part(a, b)
            parts.append(self.rows(self.counts_direct(hyps[a:b], part, False), part.item_ids))
        return np.concatenate(parts)

    def brevity(self, summed: np.ndarray) -> np.ndarray:
        """The brevity penalty of summed rows: φ(sys_len / ref_len)."""
        return brevity_penalty(summed[..., 0], summed[..., 1])

    def parts(self, summed: np.ndarray) -> BleuParts:
        """Score, precisions and BP from summed rows of shape ``(..., n_stats)``."""
        n = self.max_order
        s = np.asarray(summed, dtype=np.float64)
        return compute_bleu(
            s[..., 2 : 2 + n],
            s[..., 2 + n : 2 + 2 * n],
            self.brevity(s),
            self.opts["smooth"],
            self.opts["smooth_value"],
            self.opts["effective_order"],
        )

    def scores_from_stats(self, summed: np.ndarray) -> np.ndarray:
        """Corpus scores (0–100) for summed rows of shape ``(..., n_stats)``."""
        return self.parts(summed).score

    def result(self, summed: np.ndarray, nrefs: int | str = "var") -> ScoreResult:
        """Score with ``precisions``, ``bp``, ``sys_len``, ``ref_len``, counts and totals."""
        s = np.asarray(summed, dtype=np.float64)
        p = self.parts(s)
        n = self.max_order
        sys_len, ref_len = float(s[0]), float(s[1])
        extras = {
            "precisions": [float(x) for x in p.precisions],
            "bp": float(p.bp),
            "sys_len": round(sys_len),
            "ref_len": round(ref_len),
            "ratio": sys_len / ref_len if ref_len else 0.0,
            "counts": [max(float(x), 0.0) for x in s[2 : 2 + n]],  # clamped as in the score
            "totals": [float(x) for x in s[2 + n : 2 + 2 * n]],
        }
        return ScoreResult(float(p.score), self.signature(nrefs), extras)

    def signature_fields(self) -> list[str]:
        """Signature parts between the metric name and ``nrefs``."""
        o = self.opts
        smooth = o["smooth"]
        if smooth in ("floor", "add-k"):
            value = (
                o["smooth_value"]
                if o["smooth_value"] is not None
                else (0.1 if smooth == "floor" else 1.0)
            )
            smooth += f"[{value:.2f}]"
        return [
            f"order:{o['max_order']}",
            f"tok:{o['tokenize']}",
            f"case:{'lc' if o['lowercase'] else 'mixed'}",
            f"smooth:{smooth}",
            f"reflen:{o['ref_length']}",
        ] + (["eff:yes"] if o["effective_order"] else [])

    def signature(self, nrefs: int | str) -> str:
        """``name|…|nrefs:N|version:V``: everything needed to reproduce the score."""
        return "|".join(
            [self.name, *self.signature_fields(), f"nrefs:{nrefs}", f"version:{__version__}"]
        )


@register
class BLEU(BleuFamily):
    """Corpus BLEU (Papineni et al. 2002), identical to sacrebleu's corpus_bleu."""

    name = "bleu"
    display_name = "BLEU"


@register
class DeltaBLEU(BleuFamily):
    """Discriminative BLEU (Galley et al. 2015): multi-reference BLEU with rated references
    weighted in [-1, +1]."""

    name = "dbleu"
    display_name = "ΔBLEU"
    uses_weights = True
    options = (
        OptionSpec(
            "definition",
            str,
            "paper",
            "paper (sec. 3) or author-2019 (the author's 2019 code)",
            choices=("paper", "author-2019"),
        ),
        *BleuFamily.options,
    )

    @property
    def definition(self) -> str:  # type: ignore[override]
        """``paper`` or ``author-2019``."""
        return str(self.opts["definition"])

    def rows(self, mc: MatchCounts, item_ids: Sequence[str]) -> np.ndarray:
        """Rows whose totals are weighted by the item's largest weight (sec. 3 denominator)."""
        bad = np.flatnonzero(mc.max_weight <= 0)
        if len(bad):
            names = ", ".join(repr(item_ids[i]) for i in bad[:5])
            more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
            raise MetricInputError(
                f"item {names}{more}: ΔBLEU needs at least one reference with a positive weight"
            )
        total = mc.total * mc.max_weight[:, None]
        return np.column_stack([mc.hyp_len, mc.ref_len, mc.correct, total]).astype(np.float64)

    def signature_fields(self) -> list[str]:
        """Adds ``def:paper`` or ``def:author-2019``."""
        return [f"def:{self.definition}", *super().signature_fields()]
