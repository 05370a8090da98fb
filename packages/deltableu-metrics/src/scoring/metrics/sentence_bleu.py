"""sBLEU: the mean of sentence-level smoothed BLEU over a set (Galley et al. 2015, sec. 5).

Each item's BLEU uses sacrebleu's sentence-level settings (effective order) and, by default, Lin &
Och (2004)'s BLEU+1: add 1 to the matches and totals of orders n ≥ 2 (sacrebleu's ``add-k`` with k
= 1; ``smooth_value`` left unset takes sacrebleu's default of the method: 0.1 for ``floor``, 1 for
``add-k``). Nakov et al. (2012, sec. 5) proposed fixes to BLEU+1's bias towards short outputs,
available as options: ``smooth_unigrams`` (also add k to order 1, "grounding"), ``bp_smooth`` (BP
computed with c + 1 and r + 1), ``ref_scale`` (effective reference length multiplied by a factor)
and ``unclip_bp`` (BP = exp(1 − r/c) also when c > r, so it can exceed 1). Statistics rows are
``[sentence_score, 1, sys_len, ref_len, correct_1..N, total_1..N]``, so the corpus score (the mean)
is a ratio of sums and bootstrap resampling works unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import OptionSpec, ScoreResult
from .bleu import BleuFamily, common_options
from .bleu_math import brevity_penalty, compute_bleu, smooth_value_or_default
from .matching import MatchCounts
from .registry import register


@register
class SentenceBLEU(BleuFamily):
    """Mean of sentence-level smoothed BLEU (BLEU+1 by default); weights ignored."""

    name = "sbleu"
    display_name = "sBLEU"
    options = (
        *common_options(4, "add-k", None, effective_order=True),
        OptionSpec("smooth_unigrams", bool, False, "Nakov et al.: smooth order 1 too"),
        OptionSpec("bp_smooth", bool, False, "Nakov et al.: BP from c + 1 and r + 1"),
        OptionSpec("ref_scale", float, 1.0, "Nakov et al.: scale the reference length", minimum=0),
        OptionSpec("unclip_bp", bool, False, "Nakov et al.: BP may exceed 1 when c > r"),
    )

    def sentence_scores(self, mc: MatchCounts) -> np.ndarray:
        """Per-item smoothed BLEU (0–100)."""
        o = self.opts
        c, r = mc.hyp_len.astype(np.float64), mc.ref_len * float(o["ref_scale"])
        if o["bp_smooth"]:
            c, r = c + 1.0, r + 1.0
        if o["unclip_bp"]:
            with np.errstate(divide="ignore"):
                bp = np.where(c > 0, np.exp(1.0 - r / np.where(c > 0, c, 1.0)), 0.0)
        else:
            bp = brevity_penalty(c, r)
        correct, total = mc.correct.astype(np.float64), mc.total.astype(np.float64)
        if o["smooth_unigrams"] and o["smooth"] == "add-k":
            k = smooth_value_or_default("add-k", o["smooth_value"])
            correct[:, 0] += k
            total[:, 0] += k
        return compute_bleu(
            correct, total, bp, o["smooth"], o["smooth_value"], o["effective_order"]
        ).score

    def rows(self, mc: MatchCounts, item_ids: Any) -> np.ndarray:
        """``[sentence_score, 1]`` followed by the BLEU statistics of the item."""
        bleu_rows = super().rows(mc, item_ids)
        ones = np.ones(len(bleu_rows))
        return np.column_stack([self.sentence_scores(mc), ones, bleu_rows])

    def scores_from_stats(self, summed: np.ndarray) -> np.ndarray:
        """The mean sentence score: summed scores / number of items."""
        s = np.asarray(summed, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(s[..., 1] > 0, s[..., 0] / np.where(s[..., 1] > 0, s[..., 1], 1), 0.0)

    def result(self, summed: np.ndarray, nrefs: int | str = "var") -> ScoreResult:
        """Mean score; ``precisions``/``bp``/lengths are corpus (micro) figures, for reference."""
        s = np.asarray(summed, dtype=np.float64)
        corpus = super().result(s[2:], nrefs)
        extras = dict(corpus.extras)
        extras["corpus_precisions_note"] = "precisions and bp are corpus-level (micro) figures"
        return ScoreResult(float(self.scores_from_stats(s)), corpus.signature, extras)

    def parts(self, summed: np.ndarray) -> Any:
        """Corpus-level BLEU parts of the BLEU columns (used by :meth:`result`)."""
        return super().parts(summed)

    def signature_fields(self) -> list[str]:
        """Adds the Nakov et al. switches that are on."""
        o = self.opts
        extra = [f"nakov:{k}" for k in ("smooth_unigrams", "bp_smooth", "unclip_bp") if o[k]]
        if o["ref_scale"] != 1.0:
            extra.append(f"refscale:{o['ref_scale']:g}")
        return [*super().signature_fields(), *extra]
