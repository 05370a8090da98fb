"""What a study computes: its options and the metric configurations of Table 2 and Figure 2."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from scoring.metrics import entries, get_entry, get_metric

from .data import REFSET_ALL, REFSET_SINGLE, refset_key

BLEU_FAMILY = ("bleu", "dbleu", "sbleu", "bleu-sbp")
FIGURE_METRICS = ("bleu", "sbleu", "dbleu")
REFSETS = (REFSET_SINGLE, "theta", REFSET_ALL)

# What each option may be, from what it means; the API's, the page's and the command's limits.
UNIT_SIZES = (1, 1000)  # items per unit (M); sizes past a pair's items are fitted or dropped
ASSIGNMENTS = (1, 10_000)  # random assignments of items to units; each costs every metric
BOOTSTRAP = (1, 10_000)  # replicates behind every interval
THETAS = (-1.0, 1.0)  # a reference's weight is in [-1, 1]: θ past 1 keeps none, below -1 all
ORDERS = (1, 4)  # the BLEU family's n-gram orders
SEEDS = (0, 2**63 - 1)  # numpy's generators take non-negative seeds (-1 crashed the run)
SWEEP_POINTS = 50  # values in a sweep of θ, M or n (the paper's have at most 7)


@dataclass(frozen=True)
class StudyOptions:
    """Defaults are the paper's: M = 100, 1,000 assignments, BLEU-2, θ = 0.6 (sec. 5, Table 2).

    `metrics` empty means every registered metric. The sweeps (Figure 2) use `sweep_metrics`
    with `sweep_refset` references; the unit-size sweep keeps values with at least 3 units.
    When no pair has `unit_size` usable items, the study fits a smaller size (`fit_unit_size`).
    """

    unit_size: int = 100
    assignments: int = 1000
    bootstrap: int = 1000  # replicates of the items for the intervals (see `correlation`)
    seed: int = 12345
    order: int = 2
    theta: float = 0.6
    metrics: tuple[str, ...] = ()
    sweeps: bool = True
    thetas: tuple[float, ...] = (0.8, 0.6, 0.4, 0.2, 0.0, -0.5, -1.0)
    unit_sizes: tuple[int, ...] = (1, 2, 5, 10, 20, 50, 100)
    orders: tuple[int, ...] = (1, 2, 3, 4)
    sweep_metrics: tuple[str, ...] = FIGURE_METRICS
    sweep_refset: str = REFSET_ALL
    baseline: str = "dbleu"
    processes: int = 1  # forked processes for the per-item statistics (pure-Python parts)
    threads: int = 1  # threads for unit sums and correlations (numpy lets go of the GIL)
    extra: dict = field(default_factory=dict)
    # Names of the judgment set's uploaded metrics to include; None: all of them.
    external: tuple[str, ...] | None = None

    @classmethod
    def from_dict(cls, given: dict) -> StudyOptions:
        known = {k: v for k, v in given.items() if k in cls.__dataclass_fields__}
        for name in ("metrics", "thetas", "unit_sizes", "orders", "sweep_metrics", "external"):
            if known.get(name) is not None:
                known[name] = tuple(known[name])
        return cls(**known)

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def metric_names(self) -> list[str]:
        return list(self.metrics) or list(entries())

    def problems(self) -> dict[str, str]:
        """What is wrong with these options, by option name: an unknown metric (the valid
        names listed), a number out of its range, a sweep too long. Empty when all is well."""
        problems = {
            name: f"must be {low:,} … {high:,} (not {getattr(self, name)})."
            for name, (low, high) in _SCALARS.items()
            if not low <= getattr(self, name) <= high
        }
        for name, bounds in _SWEEPS.items():
            if problem := _sweep_problem(getattr(self, name), bounds):
                problems[name] = problem
        known = entries()
        for name in ("metrics", "sweep_metrics"):
            unknown = [m for m in getattr(self, name) if m not in known]
            if unknown:
                problems[name] = (
                    f"No metric {', '.join(map(repr, unknown))}: choose from {', '.join(known)}."
                )
        return problems


_SCALARS = {
    "unit_size": UNIT_SIZES,
    "assignments": ASSIGNMENTS,
    "bootstrap": BOOTSTRAP,
    "theta": THETAS,
    "order": ORDERS,
    "seed": SEEDS,
}
_SWEEPS = {"thetas": THETAS, "unit_sizes": UNIT_SIZES, "orders": ORDERS}


def _sweep_problem(values: tuple, bounds: tuple) -> str:
    low, high = bounds
    if len(values) > SWEEP_POINTS:
        return f"at most {SWEEP_POINTS} values."
    wrong = [v for v in values if not low <= v <= high]
    return f"each must be {low:,} … {high:,} (not {', '.join(map(str, wrong))})." if wrong else ""


@dataclass(frozen=True)
class Config:
    """One metric configuration: a metric, a reference set and (BLEU family) an n-gram order."""

    metric: str
    refset: str
    theta: float | None = None
    order: int | None = None

    @property
    def refs(self) -> str:
        return refset_key(self.refset, self.theta)

    @property
    def key(self) -> str:
        order = f"|n{self.order}" if self.order else ""
        return f"{self.metric}|{self.refs}{order}"

    @property
    def metric_options(self) -> dict:
        return {"max_order": self.order} if self.order else {}

    @property
    def label(self) -> str:
        """The name a table shows: the metric's, with its n-gram order (BLEU-2, ΔBLEU-4)."""
        display = get_entry(self.metric).display_name
        return f"{display}-{self.order}" if self.order else display

    @property
    def head(self) -> dict:
        """What a row of a meta-evaluation table says of this configuration."""
        display = get_entry(self.metric).display_name
        return {"key": self.key, "metric": self.metric, "display": display, "label": self.label,
                "signature": self.signature, "refs": self.refs}  # fmt: skip

    @property
    def signature(self) -> str:
        """The metric's signature with this reference set in place of nrefs: everything that
        makes a number reproducible (order, tokenization, smoothing, references, version), so a
        study's BLEU-2 is never mistaken for a board's BLEU-4."""
        return get_metric(self.metric, **self.metric_options).signature(self.refs)


def _config(metric: str, refset: str, theta: float, order: int) -> Config:
    if refset == "theta" and theta <= -1.0:
        refset = REFSET_ALL  # every weight is at least -1: the same set as "all"
    return Config(
        metric,
        refset,
        theta if refset == "theta" else None,
        order if metric in BLEU_FAMILY else None,
    )


def table_configs(options: StudyOptions) -> list[Config]:
    """Table 2: every metric × {single, w ≥ θ, all}."""
    return [
        _config(metric, refset, options.theta, options.order)
        for metric in options.metric_names
        for refset in REFSETS
    ]


def theta_points(options: StudyOptions) -> list[tuple[float, Config]]:
    """Figure 2A: (θ, configuration) for each sweep metric."""
    return [
        (theta, _config(metric, "theta", theta, options.order))
        for metric in options.sweep_metrics
        for theta in options.thetas
    ]


def theta_configs(options: StudyOptions) -> list[Config]:
    return [config for _, config in theta_points(options)]


def sweep_config(options: StudyOptions, metric: str, order: int | None = None) -> Config:
    return _config(metric, options.sweep_refset, options.theta, order or options.order)


def order_configs(options: StudyOptions) -> list[Config]:
    return [sweep_config(options, m, n) for m in options.sweep_metrics for n in options.orders]


def unit_size_configs(options: StudyOptions) -> list[Config]:
    return [sweep_config(options, m) for m in options.sweep_metrics]


def system_configs(options: StudyOptions) -> list[Config]:
    """The system-level table: every metric with all references at the main order."""
    return [
        _config(metric, REFSET_ALL, options.theta, options.order) for metric in options.metric_names
    ]
