"""Agreement between raters (no database): Krippendorff's alpha and agreement with the consensus.

Here in the platform so that every app computes alpha the one way: a rating campaign's raters
(`annotate.rating.selectors.agreement`) and an imported judgment set's judges
(`annotate.judgments.summary_math`).

Alpha is computed from value counts (references × scale points) rather than the raters ×
references matrix: the same number (Krippendorff 2011, "Computing Krippendorff's alpha
reliability", sec. C), but its size grows with the references only, not with the raters too.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

import numpy as np

Triple = tuple[int, int, int]  # (rater id, reference id, score)
MIN_SHARED_FOR_CORRELATION = 3  # fewer shared references make a rank correlation meaningless


def value_counts(
    triples: Iterable[tuple[Hashable, Hashable, float]], domain: Sequence[float]
) -> np.ndarray:
    """How many raters gave each scale point to each reference: shape (references, points).

    `triples` are (rater, unit, score), any hashable rater and unit, each score one of `domain`.
    References rated only once are left out: they cannot show (dis)agreement.
    """
    column = {value: i for i, value in enumerate(domain)}
    by_reference: dict[Hashable, np.ndarray] = defaultdict(lambda: np.zeros(len(domain)))
    for _, reference_id, score in triples:
        by_reference[reference_id][column[score]] += 1
    rows = [row for row in by_reference.values() if row.sum() >= 2]
    return np.array(rows) if rows else np.zeros((0, len(domain)))


Level = Literal["nominal", "ordinal", "interval", "ratio"]


def alpha(counts: np.ndarray, domain: Sequence[float], level: Level) -> float | None:
    """Krippendorff's alpha at `level` (interval, ordinal, …); None when it is undefined.

    Undefined: no reference rated twice, or every rating the same value (no variation at all,
    so expected disagreement is zero).
    """
    if counts.shape[0] == 0 or np.count_nonzero(counts.sum(axis=0)) < 2:
        return None
    import krippendorff  # with scipy, ~1 s to import: when an alpha is asked for

    value = krippendorff.alpha(
        value_counts=counts, value_domain=list(domain), level_of_measurement=level
    )
    return None if math.isnan(value) else float(value)


def consensus_agreement(triples: Sequence[Triple]) -> dict[int, dict[str, float | int | None]]:
    """Per rater: Spearman's rho of their scores against the mean of the OTHER raters' scores on
    the same references, and on how many references (n). rho is None below three shared
    references or when either side never varies.
    """
    sums: dict[int, float] = defaultdict(float)
    counts: dict[int, int] = defaultdict(int)
    for _, reference_id, score in triples:
        sums[reference_id] += score
        counts[reference_id] += 1
    pairs: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for rater_id, reference_id, score in triples:
        others = counts[reference_id] - 1
        if others:
            pairs[rater_id].append((score, (sums[reference_id] - score) / others))
    raters = {rater_id for rater_id, _, _ in triples}
    return {rater_id: _rho(pairs.get(rater_id, [])) for rater_id in raters}


def _rho(pairs: list[tuple[float, float]]) -> dict[str, float | int | None]:
    if len(pairs) < MIN_SHARED_FOR_CORRELATION:
        return {"rho": None, "n": len(pairs)}
    mine, consensus = zip(*pairs, strict=True)
    if len(set(mine)) < 2 or len(set(consensus)) < 2:
        return {"rho": None, "n": len(pairs)}
    from scipy.stats import spearmanr  # scipy.stats takes ~0.8 s to import: when needed

    rho = float(spearmanr(mine, consensus).statistic)
    return {"rho": None if math.isnan(rho) else rho, "n": len(pairs)}
