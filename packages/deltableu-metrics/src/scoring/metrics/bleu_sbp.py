"""BLEU-SBP: BLEU with the strict brevity penalty of Chiang et al. (papers/003…, sec. 3, eq. 4).

bp = φ(Σ_i min(|c_i|, |r_i|) / Σ_i |r_i|) with φ(x) = exp(1 − 1/x) (and 1 at x ≥ 1): an overlong
output for one sentence no longer licenses a short one elsewhere. |r_i| is the closest
reference length by default (``ref_length=shortest`` as an option). Rows are BLEU's rows plus
``min(c_i, r_i)`` as the last column. Weights are ignored (plain multi-reference BLEU).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .bleu import BleuFamily
from .bleu_math import brevity_penalty
from .matching import MatchCounts
from .registry import register


@register
class BleuSBP(BleuFamily):
    """BLEU with strict brevity penalty (Chiang et al. 2008); weights ignored."""

    name = "bleu-sbp"
    display_name = "BLEU-SBP"

    def rows(self, mc: MatchCounts, item_ids: Any) -> np.ndarray:
        """BLEU rows plus ``min(c_i, r_i)``."""
        clipped = np.minimum(mc.hyp_len, mc.ref_len)
        return np.column_stack([super().rows(mc, item_ids), clipped])

    def brevity(self, summed: np.ndarray) -> np.ndarray:
        """BP = φ(Σ min(c_i, r_i) / Σ r_i), from the last column and ref_len."""
        return brevity_penalty(summed[..., -1], summed[..., 1])
