"""Table 2 per criterion: ρ and τ averaged over assignments, with item-bootstrap intervals and
the paired bootstrap against the best configuration of the baseline metric.

The metric observations are shared by every criterion, so each configuration's ranks and pair
order are worked out once per set of observations and compared with every criterion's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.metrics import get_entry

from .configs import Config
from .correlation import (
    average_ranks,
    kendall_many,
    paired_difference,
    pearson_rows,
    shared_pair_order,
    summarize,
)
from .observe import Observations, thread_map


@dataclass
class Coefficients:
    """One configuration's ρ and τ per criterion, one value per set (assignment/replicate)."""

    rho: dict[str, np.ndarray]
    tau: dict[str, np.ndarray]


def coefficients(
    obs: Observations, keys: list[str], with_tau: bool, threads: int = 1
) -> dict[str, Coefficients]:
    """ρ (and τ) of every configuration in `keys` with every criterion, per row of `obs`."""
    criteria = list(obs.human)
    q_ranks = {c: average_ranks(obs.human[c]) for c in criteria}
    q_orders = [shared_pair_order(obs.human[c]) for c in criteria] if with_tau else []

    def work(key: str) -> Coefficients:
        m = obs.metric[key]
        m_ranks = average_ranks(m)
        rho = {c: pearson_rows(m_ranks, q_ranks[c]) for c in criteria}
        tau: dict[str, np.ndarray] = {}
        if with_tau:
            values = kendall_many(m, [obs.human[c] for c in criteria], q_orders, m_ranks)
            tau = dict(zip(criteria, values, strict=True))
        return Coefficients(rho, tau)

    return dict(zip(keys, thread_map(work, keys, threads), strict=True))


def describe(cfg: Config) -> dict:
    return {
        "key": cfg.key,
        "metric": cfg.metric,
        "display": get_entry(cfg.metric).display_name,
        "label": cfg.label,
        "signature": cfg.signature,
        "refs": cfg.refs,
        "refset": cfg.refset,
        "theta": cfg.theta,
        "order": cfg.order,
    }


def table_rows(
    configs: list[Config],
    main: dict[str, Coefficients],
    boot: dict[str, Coefficients],
    criterion: str,
    baseline: str,
) -> list[dict]:
    """Table 2's rows for one criterion (see the module docstring)."""
    rows = []
    for cfg in configs:
        point, replicates = main[cfg.key], boot[cfg.key]
        row = describe(cfg)
        row["criterion"] = criterion
        row["rho"] = summarize(point.rho[criterion], replicates.rho[criterion]).as_dict()
        row["tau"] = summarize(point.tau[criterion], replicates.tau[criterion]).as_dict()
        rows.append(row)
    by_metric = [r for r in rows if r["metric"] == baseline]
    if by_metric:
        best = max(by_metric, key=lambda r: np.nan_to_num(r["rho"]["value"], nan=-2))
        y, y_boot = main[best["key"]].rho[criterion], boot[best["key"]].rho[criterion]
        for row in rows:
            if row["key"] != best["key"]:
                x, x_boot = main[row["key"]].rho[criterion], boot[row["key"]].rho[criterion]
                diff = paired_difference(x, y, x_boot, y_boot)
                row["vs_baseline"] = {"baseline": best["key"], **diff.as_dict()}
    return rows


def mean_rho(coefs: Coefficients, criterion: str) -> float:
    """The mean over assignments of ρ (NaN when no assignment has one)."""
    values = coefs.rho[criterion]
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else float("nan")
