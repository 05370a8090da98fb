"""Charts as Vega-Lite specs: plain dicts holding their data, axes and tooltips.

A page shows one with ``{% load charts %}{% chart spec caption="…" %}`` (``core/chart_tags.py``),
which embeds the spec as JSON and a table of its values (for readers without JavaScript), and
``static/js/charts.js`` draws it with the vendored vega-embed, whose menu downloads it as PNG or
SVG. Every builder here names its axes, writes values on them, and gives each mark a tooltip;
the tooltip's fields are also the columns of the values table (``chart_table``).
"""

from core.plots.base import Spec, chart_table
from core.plots.charts import histogram, hourly_counts, lines, scatter
from core.plots.ranks import IntervalPoint, intervals, rank_distribution

__all__ = [
    "IntervalPoint",
    "Spec",
    "chart_table",
    "histogram",
    "hourly_counts",
    "intervals",
    "lines",
    "rank_distribution",
    "scatter",
]
