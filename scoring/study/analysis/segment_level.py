"""The segment level of a study and WMT's meta-evaluation (METHODS.md, "Meta-evaluation").

A response is one system's output for one item with a human score in the criterion. Its
metric score is the metric of that response's own statistics row (`scores_from_stats(row)`):
the metric's sentence-level form with its own smoothing — what a corpus metric would give
if the corpus were that one response (BLEU's sentence BLEU, ΔBLEU's sentence ΔBLEU, …),
except that what a metric learns from the whole test set stays the test set's (NIST's and
ΔNIST's n-gram information weights come from all the study's references).
Configurations are the system level's (every metric with all rated references at the main
order). The BLEU family's other reference sets (single, w ≥ θ) are left out: each would cost
a whole metric's segment level again (~1 s at 100,000 responses), and Table 2 compares them.
Scores are multiplied by the metric's direction, so agreement is positive.
Metrics computed elsewhere (`data.external`: uploaded per-response scores, labelled
"external: <name>") are more rows of the same (systems, items) grids, taken as uploaded, and
go through every statistic below beside the built-ins.

Per criterion: segment-level Pearson, Spearman and Kendall over all responses ("none") and
item-grouped ("item"), with 95% bootstrap intervals over items (`segments`); item-grouped
acc_eq with its ε; soft pairwise accuracy (SPA) of each metric; and significance clusters
(PERM-BOTH) at system level and at segment level. Pairwise campaigns have no per-response
human scores: none of this exists for them (a note says so).

Cost. At 100,000 responses one bootstrap draw of Spearman without grouping costs ~9 ms and
one of Kendall ~30 ms (one scipy call), while Pearson and the item-grouped statistics are
cheap, but drawing 1,000 bootstrap samples of 10,000 items is not free either. To keep a
100,000-response study's segment level under 10 s, each metric's bootstrap draws are capped
at `SEGMENT_BUDGET` response-draws (at least `MIN_DRAWS`), Spearman's without grouping at
`RANK_BUDGET`, and Kendall without grouping gets
its interval only when `KENDALL_BUDGET` allows `MIN_DRAWS` draws (otherwise its value alone,
a note saying so: the item-grouped τ keeps its interval). PERM-BOTH draws are capped the
same way (`PERM_BUDGET`). Every interval and cluster states its draws.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy import stats as sps

from scoring.metrics import get_metric

from .configs import Config, StudyOptions, system_configs
from .data import StudyData
from .metaeval import item_grouped_tie_calibrated_accuracy, soft_pairwise_accuracy
from .observe import sign
from .segments import SegmentCorrelation, segment_correlations
from .significance import MetricRank, correlation_method, significance_clusters
from .stats import Rows

# Fewer draws than this make a 95% percentile interval too rough to print.
MIN_DRAWS = 100
# Response-draws (responses × draws) of each metric's segment-level bootstrap (Pearson, and
# every item-grouped statistic): every draw asked for up to 20,000 responses, 200 at 100,000.
SEGMENT_BUDGET = 20_000_000
# Response-draws for Spearman without grouping: a draw re-ranks the tie groups (~4 ms at
# 100,000 responses with ties): 100 draws there, every draw asked for up to 10,000 responses.
RANK_BUDGET = 10_000_000
# Response-draws for Kendall without grouping: an interval up to 20,000 responses (~0.5 s a
# metric); past that its value alone (one scipy call).
KENDALL_BUDGET = 2_000_000
# Response-draws for each PERM-BOTH test (system and segment level): 1,000 draws up to
# 20,000 responses, 200 at 100,000 (p-values in steps of 0.005).
PERM_BUDGET = 20_000_000
PERM_DRAWS = 1000
SPA_PERMUTATIONS = 1000  # WMT24's
ALPHA = 0.05
# The correlation PERM-BOTH recomputes: Pearson, the one that costs a product per draw.
CLUSTER_STATISTIC = "pearson"
SCORE_NOTE = (
    "the metric of that one response's statistics row "
    "(its sentence-level form, with the metric's own smoothing), all rated references; "
    "NIST's information weights are the whole test set's"
)


def _budget(responses: int, budget: int, most: int) -> int:
    return int(min(most, max(MIN_DRAWS, budget // max(responses, 1))))


def response_grid(
    stats: dict[str, Rows], cfg: Config, systems: list[str], data: StudyData
) -> np.ndarray:
    """(systems, items) of each response's metric score times the metric's direction; NaN
    where the system has no output."""
    metric = get_metric(cfg.metric, **cfg.metric_options)
    grid = np.vstack([np.asarray(metric.scores_from_stats(stats[cfg.key][s])) for s in systems])
    has = np.vstack([data.has_output(s) for s in systems])
    return np.where(has, sign(cfg.metric) * grid, np.nan)


def _interval(c: SegmentCorrelation, with_interval: bool = True) -> dict:
    # None, not NaN, for an interval left out by choice: NaN is counted as "undefined".
    low, high = (c.low, c.high) if with_interval else (None, None)
    out = {"value": c.value, "low": low, "high": high, "draws": c.draws if with_interval else 0}
    return out | {"n_groups": c.n_groups, "n_constant": c.n_constant, "n_too_few": c.n_too_few}


def _kendall_point(metric: np.ndarray, human: np.ndarray) -> float:
    ok = np.isfinite(metric) & np.isfinite(human)
    with warnings.catch_warnings():  # a constant side is NaN, shown as undefined
        warnings.simplefilter("ignore")
        return float(sps.kendalltau(metric[ok], human[ok]).statistic)


def correlations_of(metric: np.ndarray, human: np.ndarray, options: StudyOptions) -> dict:
    """Pearson/Spearman/Kendall without grouping and item-grouped, with intervals (the draws
    as in the module docstring), and counts of responses and items."""
    n = int((np.isfinite(metric) & np.isfinite(human)).sum())
    draws = segment_draws(n, options.bootstrap)

    def run(statistics: tuple[str, ...], grouping: str, k: int) -> list[SegmentCorrelation]:
        return segment_correlations(
            metric, human, statistics=statistics, groupings=(grouping,), draws=k, seed=options.seed
        )

    (pearson,) = run(("pearson",), "none", draws)
    (spearman,) = run(("spearman",), "none", _budget(n, RANK_BUDGET, options.bootstrap))
    none = {"pearson": _interval(pearson), "spearman": _interval(spearman)}
    kendall_draws = min(options.bootstrap, KENDALL_BUDGET // max(n, 1))
    if kendall_draws >= min(MIN_DRAWS, options.bootstrap):
        none["kendall"] = _interval(run(("kendall",), "none", kendall_draws)[0])
    else:
        point = _kendall_point(metric, human)
        none["kendall"] = _interval(pearson, False) | {"value": point}
    grouped = run(("pearson", "spearman", "kendall"), "item", draws)
    item = {c.statistic: _interval(c) for c in grouped}
    return {"responses": n, "items": pearson.n_items, "none": none, "item": item}


def segment_draws(responses: int, most: int) -> int:
    """Bootstrap draws of the segment level: `most` (the study's) up to `SEGMENT_BUDGET`
    response-draws, then fewer, at least `MIN_DRAWS`."""
    return _budget(responses, SEGMENT_BUDGET, most)


def _clusters(human: np.ndarray, grids: dict[str, np.ndarray], level: str, seed: int) -> dict:
    n = int(np.isfinite(human).sum())
    draws = _budget(n, PERM_BUDGET, PERM_DRAWS)
    ranks: list[MetricRank] = significance_clusters(
        human,
        grids,
        correlation_fn=correlation_method(level, CLUSTER_STATISTIC),
        alpha=ALPHA,
        draws=draws,
        seed=seed,
    )
    return {
        "level": level,
        "statistic": CLUSTER_STATISTIC,
        "alpha": ALPHA,
        "draws": draws,
        "ranks": [
            {"key": r.name, "correlation": r.correlation, "rank": r.rank}
            # The best of the list, and an unranked metric, were tested against none.
            | {"closest": r.closest, "p_value": r.p_value if r.closest else None}
            for r in ranks
        ],
    }


def _criterion(
    data: StudyData, stats: dict[str, Rows], options: StudyOptions, criterion: str
) -> dict | None:
    scores = data.system_scores[criterion]
    systems = [s for s in sorted(scores) if s in data.outputs]
    if len(systems) < 2:
        return None
    human = np.vstack([np.asarray(scores[s], dtype=np.float64) for s in systems])
    has = np.vstack([data.has_output(s) for s in systems])
    # Uploaded metrics are more columns of the same grids: every statistic below, the
    # clusters and the system level's SPA treat them as they treat the built-ins.
    columns = [(c.head, response_grid(stats, c, systems, data)) for c in system_configs(options)]
    columns += [(e.head, e.sign * e.raw(systems, has)) for e in data.external]
    grids = {head["key"]: g for head, g in columns}
    rows = []
    for head, g in columns:
        grid = np.where(np.isfinite(human), g, np.nan)
        row = head | correlations_of(grid, human, options)
        acc = item_grouped_tie_calibrated_accuracy(grid, human)
        row["acc_eq"] = {"value": acc.value, "epsilon": acc.epsilon}
        row["acc_eq"] |= {"n_groups": acc.n_groups, "n_dropped": acc.n_dropped}
        rows.append(row)
    return {
        "systems": systems,
        "score": SCORE_NOTE,
        "correlations": rows,
        "clusters": _clusters(human, grids, "none", options.seed),
        "grids": (human, grids),  # for the system-level meta-evaluation; dropped after it
    }


def _system_metaeval(level: dict, segment: dict, options: StudyOptions) -> None:
    """SPA per metric and the system-level clusters, on the items of the system table."""
    human, grids = segment["grids"]
    # Only the metrics of the system table: an uploaded metric missing some of its items is
    # left out there, and must not shrink the items the others' SPA is computed on.
    grids = {row["key"]: grids[row["key"]] for row in level["correlations"]}
    systems = [row["system"] for row in level["systems"]]
    rows = [segment["systems"].index(s) for s in systems]
    has_all = np.all(np.isfinite(human[rows]), axis=0)
    for g in grids.values():
        has_all &= np.all(np.isfinite(g[rows]), axis=0)
    human = np.where(has_all, human[rows], np.nan)
    grids = {k: np.where(has_all, g[rows], np.nan) for k, g in grids.items()}
    for row in level["correlations"]:
        spa = soft_pairwise_accuracy(
            grids[row["key"]], human, permutations=SPA_PERMUTATIONS, seed=options.seed
        )
        row["spa"] = {"value": spa.value, "permutations": spa.permutations, "pairs": spa.n_pairs}
    if level["correlations"]:
        level["clusters"] = _clusters(human, grids, "system", options.seed)


def segment_level(
    data: StudyData,
    stats: dict[str, Rows],
    options: StudyOptions,
    systems: dict[str, dict],
    notes: list[str],
    step: Callable[[str], None] | None = None,
) -> dict[str, dict]:
    """Per criterion with per-response human scores: the segment level (see the module
    docstring); adds SPA and the clusters to `systems` (the system level) in place. `step`
    hears of each criterion before its work starts (the run's progress)."""
    if not data.system_scores:
        notes.append(
            "pairwise human scores have no per-response scores: no segment level, no soft "
            "pairwise accuracy and no significance clusters"
        )
        return {}
    out = {}
    for criterion in data.system_scores:
        if step is not None:
            step(f"Segment level and meta-evaluation — {criterion}")
        found = _criterion(data, stats, options, criterion)
        if found is None:
            notes.append(f"{criterion}: fewer than two systems with outputs, no segment level")
            continue
        if criterion in systems:
            _system_metaeval(systems[criterion], found, options)
        del found["grids"]
        out[criterion] = found
        draws = {row["none"]["pearson"]["draws"] for row in found["correlations"]}
        if draws and min(draws) < options.bootstrap:
            notes.append(
                f"{criterion}: the segment level's intervals use {min(draws):,} bootstrap draws "
                f"(not {options.bootstrap:,}; Spearman over all responses "
                f"{found['correlations'][0]['none']['spearman']['draws']:,}): each draw "
                f"reweighs all {found['correlations'][0]['responses']:,} responses, and the "
                "draws are capped to keep the study's run short"
            )
        if any(row["none"]["kendall"]["draws"] == 0 for row in found["correlations"]):
            notes.append(
                f"{criterion}: Kendall's τ over all responses is shown without an interval "
                f"(more than {KENDALL_BUDGET // MIN_DRAWS:,} responses: each bootstrap draw "
                "is one O(n log n) scipy call); the item-grouped τ has its interval"
            )
    return out
