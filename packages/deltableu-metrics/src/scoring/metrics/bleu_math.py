"""Pure, vectorised functions from summed BLEU statistics to scores (no tokenization here).

:func:`compute_bleu` is sacrebleu 2.6's ``BLEU.compute_bleu`` (Papineni et al. 2002; smoothing
methods of Chen & Cherry 2014) over arrays of any leading shape, so a bootstrap scores 1,000
resampled corpora in one call. ΔBLEU (Galley et al. 2015, sec. 3) uses it unchanged after
clamping a negative corpus numerator to 0 (``p_n = max(numerator_n, 0) / denominator_n``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SMOOTH_METHODS = ("none", "floor", "add-k", "exp")
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1.0, "exp": None}
_LOG_ZERO = -9999999999.0  # sacrebleu's my_log(0)


@dataclass
class BleuParts:
    """Score (0–100), precisions (0–100, one per order) and brevity penalty, all arrays."""

    score: np.ndarray
    precisions: np.ndarray
    bp: np.ndarray


def smooth_value_or_default(method: str, value: float | None) -> float:
    """The smoothing value sacrebleu uses for ``method`` when ``value`` is None."""
    if method not in SMOOTH_METHODS:
        raise ValueError(f"unknown smoothing {method!r}; choose one of {', '.join(SMOOTH_METHODS)}")
    if value is None:
        default = SMOOTH_DEFAULTS[method]
        return 0.0 if default is None else default
    return float(value)


def brevity_penalty(sys_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """BLEU's BP = 1 if c ≥ r else exp(1 − r/c) (0 when c = 0), elementwise."""
    sys_len = np.asarray(sys_len, dtype=np.float64)
    ref_len = np.asarray(ref_len, dtype=np.float64)
    short = sys_len < ref_len
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(short, np.exp(1.0 - ref_len / np.where(sys_len > 0, sys_len, 1.0)), 1.0)
    return np.where(short & (sys_len <= 0), 0.0, bp)


def compute_bleu(
    correct: np.ndarray,
    total: np.ndarray,
    bp: np.ndarray,
    smooth_method: str = "none",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> BleuParts:
    """sacrebleu's ``compute_bleu`` with a given brevity penalty, vectorised over ``(..., N)``.

    ``correct`` and ``total`` have shape ``(..., N)`` (N = max order), ``bp`` shape ``(...)``.
    Negative ``correct`` (ΔBLEU with negative weights) is clamped to 0 first.
    """
    k = smooth_value_or_default(smooth_method, smooth_value)
    c = np.maximum(np.asarray(correct, dtype=np.float64), 0.0)
    t = np.array(total, dtype=np.float64)
    bp = np.asarray(bp, dtype=np.float64)
    n_max = c.shape[-1]
    any_correct = np.any(c != 0, axis=-1)
    if smooth_method == "add-k" and n_max > 1:
        c = c.copy()
        c[..., 1:] += k
        t[..., 1:] += k
    processed = np.cumsum(t == 0, axis=-1) == 0  # sacrebleu stops at the first empty order
    zero = (c == 0) & processed
    safe_t = np.where(t == 0, 1.0, t)
    prec = 100.0 * c / safe_t
    if smooth_method == "exp":
        prec = np.where(zero, 100.0 / (2.0 ** np.cumsum(zero, axis=-1) * safe_t), prec)
    elif smooth_method == "floor":
        prec = np.where(zero, 100.0 * k / safe_t, prec)
    prec = np.where(processed, prec, 0.0)
    if effective_order:
        eff = processed.sum(axis=-1)
        eff = np.where(eff == 0, n_max, eff)
    else:
        eff = np.full(any_correct.shape, n_max)
    with np.errstate(divide="ignore"):
        logs = np.where(prec > 0, np.log(np.where(prec > 0, prec, 1.0)), _LOG_ZERO)
    used = np.arange(n_max) < eff[..., None]
    score = bp * np.exp(np.sum(np.where(used, logs, 0.0), axis=-1) / eff)
    score = np.where(any_correct, score, 0.0)
    prec = np.where(any_correct[..., None], prec, 0.0)
    return BleuParts(score, prec, bp)
