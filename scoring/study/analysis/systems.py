"""System-level evidence: each system's mean human score per criterion next to each metric's
corpus score, and the correlations over systems (Pearson, Spearman, Kendall's τ-b).

A system's corpus score is the metric of its summed statistics rows over the items that every
system shares (an output from each, and a human score for each in that criterion), so that all
systems are scored on the same items; its human mean is over the same items. Configurations:
every metric with all rated references at the main n-gram order. Correlations use the metric
score times its direction (lower-is-better metrics are negated), so agreement is positive.

Metrics computed elsewhere (`data.external`, uploaded per-response scores) join the table
with a system's score the mean of its per-response scores over the same shared items (no
statistics rows to sum), resampled with the same draws; they go through the same
correlations, pairwise accuracy and acc_eq.

Intervals resample the shared items (WMT's metrics task does the same): each of the
`options.bootstrap` replicates draws the items with replacement, recomputes every system's
human mean and every metric's corpus score on that draw (the same draw for every metric and
system), and the correlations; 95% intervals are the 2.5th–97.5th percentiles. Deterministic
from the seed.
"""

from __future__ import annotations

import numpy as np

from scoring.metrics import get_metric

from .configs import Config, StudyOptions, system_configs
from .correlation import kendall_rows, pearson_rows, percentiles, spearman_rows
from .data import StudyData
from .metaeval import pairwise_accuracy, tie_calibrated_accuracy, tie_calibrated_values
from .observe import sign
from .stats import Rows
from .units import dedupe_columns, item_draw_counts

# Correlations over fewer systems than this are not reported.
MIN_SYSTEMS = 3


def _interval(value: float, replicates: np.ndarray) -> dict[str, float]:
    low, high = percentiles(replicates)
    return {"value": float(value), "low": low, "high": high}


def _draw_counts(n_items: int, n_replicates: int, seed: int) -> np.ndarray:
    """How often each item is drawn in each replicate: (replicates, items)."""
    return next(item_draw_counts(n_items, n_replicates, seed))


def _correlations(metric: np.ndarray, human: np.ndarray) -> dict[str, np.ndarray]:
    """Pearson, Spearman and Kendall of each row of `metric` with the same row of `human`."""
    return {
        "pearson": pearson_rows(metric, human),
        "spearman": spearman_rows(metric, human),
        "kendall": kendall_rows(metric, human),
    }


def _metric_scores(
    stats: dict[str, Rows],
    configs: list[Config],
    systems: list[str],
    shared: np.ndarray,
    counts: np.ndarray,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Each configuration's corpus score per system on the shared items (systems,) and per
    replicate (replicates, systems). Every system's columns go through one product with the
    draw counts."""
    blocks: list[np.ndarray] = []
    where: list[dict[str, np.ndarray]] = []
    for system in systems:
        matrix, columns = dedupe_columns({c.key: stats[c.key][system][shared] for c in configs})
        offset = sum(b.shape[1] for b in blocks)
        where.append({key: cols + offset for key, cols in columns.items()})
        blocks.append(matrix)
    rows = np.hstack(blocks)
    summed, resampled = rows.sum(axis=0), counts @ rows
    point, boot = {}, {}
    for cfg in configs:
        metric = get_metric(cfg.metric, **cfg.metric_options)
        cols = np.stack([w[cfg.key] for w in where])  # (systems, stats)
        point[cfg.key] = metric.scores_from_stats(summed[cols])
        boot[cfg.key] = metric.scores_from_stats(resampled[:, cols])
    return point, boot


def _criterion(
    data: StudyData,
    stats: dict[str, Rows],
    options: StudyOptions,
    criterion: str,
    notes: list[str],
) -> dict | None:
    scores = data.system_scores[criterion]
    systems = [s for s in sorted(scores) if s in data.outputs]
    if len(systems) < len(scores):
        notes.append(f"{criterion}: systems without outputs left out of the system-level table")
    if not systems:
        return None
    human = np.vstack([np.asarray(scores[s], dtype=np.float64) for s in systems])
    has = np.vstack([data.has_output(s) for s in systems])
    shared = np.flatnonzero(np.all(np.isfinite(human) & has, axis=0))
    if not shared.size:
        notes.append(f"{criterion}: no item has an output and a score from every system")
        return None
    counts = _draw_counts(shared.size, options.bootstrap, options.seed)
    human = human[:, shared]
    human_mean, human_boot = human.mean(axis=1), counts @ human.T / shared.size
    configs = system_configs(options)
    point, boot = _metric_scores(stats, configs, systems, shared, counts)
    heads = [(c.head, sign(c.metric)) for c in configs]
    heads += _external_scores(data, systems, (shared, counts), (point, boot), notes, criterion)
    table = [
        {
            "system": system,
            "human": _interval(human_mean[k], human_boot[:, k]),
            "metrics": {head["key"]: float(point[head["key"]][k]) for head, _ in heads},
        }
        for k, system in enumerate(systems)
    ]
    correlations = []
    if len(systems) >= MIN_SYSTEMS:
        for head, s in heads:
            key = head["key"]
            at_point = _correlations(s * point[key][None, :], human_mean[None, :])
            replicated = _correlations(s * boot[key], human_boot)
            row: dict = {k: v for k, v in head.items() if k != "refs"}
            for name, values in at_point.items():
                row[name] = _interval(values[0], replicated[name])
            row |= _pairwise(s * point[key], human_mean, s * boot[key], human_boot)
            correlations.append(row)
    else:
        notes.append(f"{criterion}: fewer than {MIN_SYSTEMS} systems, no system-level correlation")
    return {"items": int(shared.size), "systems": table, "correlations": correlations}


def _external_scores(
    data: StudyData,
    systems: list[str],
    draws: tuple[np.ndarray, np.ndarray],
    scores: tuple[dict[str, np.ndarray], dict[str, np.ndarray]],
    notes: list[str],
    criterion: str,
) -> list[tuple[dict, int]]:
    """Uploaded metrics' system scores, added to `scores` (point, replicates): a system's
    score is the mean of its per-response scores over the shared items, resampled with the
    same draws as the human means. A metric without a score for every shared response is
    left out (a mean over other items than the humans' would not be comparable)."""
    shared, counts = draws
    point, boot = scores
    has = np.vstack([data.has_output(s) for s in systems])
    heads = []
    for ext in data.external:
        raw = ext.raw(systems, has)[:, shared]
        if not np.all(np.isfinite(raw)):
            missing = int((~np.isfinite(raw)).sum())
            notes.append(
                f"{criterion}: {ext.head['label']} lacks {missing} of the system table's "
                f"{raw.size} responses: left out of the system level"
            )
            continue
        point[ext.key], boot[ext.key] = raw.mean(axis=1), counts @ raw.T / shared.size
        heads.append((ext.head, ext.sign))
    return heads


def _pairwise(
    metric: np.ndarray, human: np.ndarray, metric_boot: np.ndarray, human_boot: np.ndarray
) -> dict[str, dict]:
    """Pairwise accuracy and acc_eq (with its ε) over the system pairs, each with the
    interval of the same item replicates as the correlations (acc_eq's ε re-chosen in each
    replicate, as a replicate is a study of its own)."""
    i, j = np.triu_indices(metric.size, k=1)
    agree = np.sign(metric_boot[:, i] - metric_boot[:, j]) == np.sign(
        human_boot[:, i] - human_boot[:, j]
    )
    accuracy = pairwise_accuracy(metric, human)
    calibrated = tie_calibrated_accuracy(metric, human)
    replicated = tie_calibrated_values(metric_boot, human_boot)
    return {
        "pairwise_accuracy": _interval(accuracy.value, agree.mean(axis=1))
        | {"pairs": accuracy.counts.total},
        "acc_eq": _interval(calibrated.value, np.asarray(replicated))
        | {"epsilon": calibrated.epsilon},
    }


def system_level(
    data: StudyData, stats: dict[str, Rows], options: StudyOptions, notes: list[str]
) -> dict[str, dict]:
    """Per criterion (those with system scores, in `data.criteria` order first): the systems'
    human means and metric scores and the correlations over systems (see the module
    docstring). Empty when there are no system scores (pairwise campaigns)."""
    order = [c for c in data.criteria if c in data.system_scores]
    order += [c for c in data.system_scores if c not in order]
    out = {}
    for criterion in order:
        found = _criterion(data, stats, options, criterion, notes)
        if found is not None:
            out[criterion] = found
    return out
