"""The Vega-Lite specs: their data, axes and tooltips, the table of their values, and that the
vendored Vega-Lite compiles them and draws values on their axes."""

import json
import math
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.plots import (
    IntervalPoint,
    chart_table,
    histogram,
    hourly_counts,
    intervals,
    lines,
    rank_distribution,
    scatter,
)

VENDOR = Path(__file__).resolve().parents[2] / "static" / "vendor" / "vega"


def values(spec):
    return spec["data"]["values"]


def test_a_histogram_has_one_row_per_bin_and_counts_every_value():
    spec = histogram([-1, -0.9, 0, 0.1, 0.95, 1], bins=4, title="W", x_title="Weight")
    assert [row["count"] for row in values(spec)] == [2, 0, 2, 2]
    assert [(row["from"], row["to"]) for row in values(spec)][:2] == [(-1, -0.5), (-0.5, 0)]
    assert spec["encoding"]["x"]["title"] == "Weight" and spec["encoding"]["y"]["title"] == "Count"
    assert spec["encoding"]["x"]["scale"]["domain"] == [-1, 1]


def test_values_outside_the_range_go_into_the_end_bins():
    spec = histogram([-5, 5], bins=2, title="W", x_title="Weight")
    assert [row["count"] for row in values(spec)] == [1, 1]


def test_an_empty_histogram_still_has_its_bins():
    assert [row["count"] for row in values(histogram([], bins=3, title="W", x_title="w"))] == [
        0,
        0,
        0,
    ]


def test_a_bad_range_is_refused():
    with pytest.raises(ValueError, match="lo < hi"):
        histogram([1], lo=1, hi=1, title="W", x_title="w")


def test_hourly_counts_are_bars_per_utc_hour_with_a_readable_label():
    hour = datetime(2026, 3, 2, 14, tzinfo=UTC)
    spec = hourly_counts([(hour, 3)], title="Answers per hour", y_title="Answers")
    start = int(hour.timestamp() * 1000)
    assert values(spec)[-1] == {
        "hour": start,
        "end": start + 3_600_000,
        "label": "02 Mar 14:00",
        "count": 3,
    }
    # Twelve hours at least: the eleven before count 0.
    assert [row["count"] for row in values(spec)] == [0] * 11 + [3]
    assert values(spec)[0]["label"] == "02 Mar 03:00"
    x = spec["encoding"]["x"]
    assert x["title"] == "Hour (UTC), 02 Mar" and x["axis"]["format"] == "%H:00"
    assert len(x["axis"]["values"]) == 6  # even hours, 04:00 to 14:00
    assert [t["title"] for t in spec["encoding"]["tooltip"]] == ["Hour (UTC)", "Answers"]


def test_hourly_counts_fill_missing_hours_and_keep_a_long_span():
    start = datetime(2026, 3, 1, 20, tzinfo=UTC)
    hours = [(start + timedelta(hours=k), k) for k in range(0, 30, 3)]
    rows = values(hourly_counts(hours, title="t"))
    assert len(rows) == 28 and sum(row["count"] for row in rows) == sum(range(0, 30, 3))
    assert hourly_counts([], title="t")["data"]["values"] == []


def test_lines_drop_undefined_points_and_name_series_in_a_legend():
    spec = lines(
        {"ΔBLEU": [(0.8, 0.1), (0.0, None), (-1.0, math.nan)], "BLEU": [(0.8, 0.2)]},
        title="ρ by θ",
        x_title="θ",
        y_title="Spearman's ρ",
        series_title="Metric",
        x_descending=True,
    )
    assert values(spec) == [
        {"series": "ΔBLEU", "x": 0.8, "y": 0.1},
        {"series": "BLEU", "x": 0.8, "y": 0.2},
    ]
    assert spec["encoding"]["x"]["scale"]["reverse"] is True  # θ decreases to the right
    assert spec["encoding"]["color"]["title"] == "Metric"
    assert spec["mark"] == {"type": "line", "point": True}


def test_one_line_needs_no_legend():
    spec = lines({"BLEU": [(1, 0.2), (2, 0.4)]}, title="t", x_title="M", y_title="ρ")
    assert "field" not in spec["encoding"]["color"]
    assert spec["encoding"]["x"]["scale"]["reverse"] is False
    assert spec["encoding"]["x"]["axis"] == {"tickMinStep": 1, "format": "d"}  # whole x


def test_a_scatter_labels_each_point():
    spec = scatter(
        [(0.1, 0.2, "sys-a"), (0.3, math.inf, "bad"), (0.5, 0.4, "sys-b")],
        title="BLEU against human",
        x_title="human (mean)",
        y_title="BLEU",
    )
    assert [row["label"] for row in values(spec)] == ["sys-a", "sys-b"]
    points, labels = spec["layer"]
    assert labels["mark"]["type"] == "text" and labels["encoding"]["text"]["field"] == "label"
    assert [t["field"] for t in points["encoding"]["tooltip"]] == ["label", "x", "y"]


def test_intervals_keep_their_order_and_tell_baselines_apart():
    spec = intervals(
        [
            IntervalPoint("team: m", 0.42, 0.40, 0.44),
            IntervalPoint("team: m", 0.41, 0.39, 0.43),
            IntervalPoint("copy", 0.3, None, None, highlight=True),
        ],
        title="BLEU with 95% intervals",
        x_title="BLEU",
    )
    assert [row["label"] for row in values(spec)] == ["team: m", "team: m (2)", "copy"]
    assert [row["kind"] for row in values(spec)] == ["submission", "submission", "baseline"]
    assert values(spec)[2]["low"] is None
    assert spec["encoding"]["color"]["scale"]["domain"] == ["submission", "baseline"]
    alone = intervals([IntervalPoint("copy", 0.3, 0.2, 0.4, True)], title="t", x_title="BLEU")
    assert alone["encoding"]["color"]["scale"] == {"domain": ["baseline"], "range": ["#d97800"]}
    assert spec["encoding"]["y"]["sort"] is None  # best first, as given
    assert spec["height"] == 3 * 22


def test_the_table_of_values_follows_the_tooltip():
    spec = intervals(
        [IntervalPoint("a", 0.4213, 0.4, 0.44), IntervalPoint("b", 0.3, None, None)],
        title="t",
        x_title="BLEU",
    )
    headers, rows = chart_table(spec)
    assert headers == ["Entry", "BLEU", "95% interval, low", "95% interval, high"]
    assert rows == [["a", "0.42", "0.40", "0.44"], ["b", "0.30", "—", "—"]]
    _, rows = chart_table(scatter([(0.123456, 12.5, "s")], title="t", x_title="h", y_title="m"))
    assert rows == [["s", "0.1235", "12.5"]]


ALL = [
    histogram([0.1, 0.5, -0.3], title="Weights", x_title="Weight"),
    hourly_counts(
        [(datetime(2026, 1, 1, h, tzinfo=UTC), h) for h in range(5)], title="Answers per hour"
    ),
    lines(
        {"a": [(0.8, 0.1), (0.0, 0.5)], "b": [(0.8, 0.2), (0.0, 0.4)]},
        title="Sweep",
        x_title="θ",
        y_title="ρ",
        x_descending=True,
    ),
    scatter([(1, 2, "s1"), (2, 3, "s<2>")], title="Scatter", x_title="human", y_title="metric"),
    intervals(
        [IntervalPoint("t: m", 0.4, 0.3, 0.5), IntervalPoint("b", 0.2, None, None, True)],
        title="Intervals",
        x_title="BLEU",
    ),
    intervals(
        [IntervalPoint("t: m", 0.4, 0.3, 0.5, wide_low=0.25, wide_high=0.55)],
        title="Two intervals",
        x_title="ΔBLEU",
        wide_title="with raters",
    ),
    rank_distribution(["x", "y"], [[0.75, 0.25], [0.25, 0.75]], title="Ranks"),
]


def test_the_wide_interval_is_drawn_behind_with_its_own_tooltip():
    spec = ALL[5]
    assert values(spec)[0]["wide_low"] == 0.25 and values(spec)[0]["wide_high"] == 0.55
    assert spec["layer"][0]["mark"]["strokeWidth"] > spec["layer"][1]["mark"]["strokeWidth"]
    titles, rows = chart_table(spec)
    assert titles[-2:] == ["with raters, low", "with raters, high"]
    assert rows == [["t: m", "0.40", "0.30", "0.50", "0.25", "0.55"]]
    assert len(ALL[4]["layer"]) == 2  # without a wide interval: the rule and the dot only


def test_the_rank_distribution_has_a_cell_per_entry_and_rank():
    spec = rank_distribution(
        ["a", "b", "a"], [[0.9, 0.1, 0], [0.1, 0.6, 0.3], [0, 0.3, 0.7]], title="t"
    )
    cells = values(spec)
    assert len(cells) == 9 and [c["label"] for c in cells[::3]] == ["a", "b", "a (2)"]
    assert [c["text"] for c in cells[:3]] == ["90%", "10%", ""]
    assert spec["encoding"]["y"]["sort"] == ["a", "b", "a (2)"]
    titles, rows = chart_table(spec)
    assert titles == ["Entry", "Rank", "P"] and rows[0] == ["a", "1", "90.0%"]


def test_every_spec_is_plain_json():
    for spec in ALL:
        assert json.loads(json.dumps(spec, allow_nan=False)) == spec


RENDER = """
const fs = require("fs"), vm = require("vm");
globalThis.module = globalThis.exports = undefined;  // so the bundles define browser globals
for (const f of ["vega.min.js", "vega-lite.min.js"])
  vm.runInThisContext(fs.readFileSync(process.argv[1] + "/" + f, "utf8"), {filename: f});
const specs = JSON.parse(fs.readFileSync(0, "utf8"));
Promise.all(specs.map((spec) => {
  const compiled = vegaLite.compile({...spec, width: 400}).spec;
  return new vega.View(vega.parse(compiled), {renderer: "none"}).toSVG();
})).then((svgs) => process.stdout.write(JSON.stringify(svgs)),
         (e) => { console.error(String(e)); process.exit(1); });
"""


@pytest.mark.slow  # starts Node.js: make test and CI, not test-fast
@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to run the vendored Vega")
def test_the_vendored_vega_lite_draws_every_spec_with_values_on_its_axes():
    done = subprocess.run(
        ["node", "-e", RENDER, str(VENDOR)],
        input=json.dumps(ALL),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    texts = [re.findall(r"<text[^>]*>([^<]*)</text>", svg) for svg in json.loads(done.stdout)]
    weights, hourly, sweep, scatter_, interval, two_intervals, ranks = texts
    assert {"−1.0", "0.0", "1.0", "Weight", "Count", "Weights"} <= set(weights)
    assert {"00:00", "04:00", "Hour (UTC), 31 Dec to 01 Jan"} <= set(hourly)
    assert {"θ", "ρ", "0.0", "0.8", "a", "b"} <= set(sweep)
    assert {"human", "metric", "s1", "s&lt;2&gt;"} <= set(scatter_)
    assert {"BLEU", "t: m", "baseline", "0.30"} <= set(interval)
    assert {"ΔBLEU", "t: m"} <= set(two_intervals)
    assert {"Rank", "1", "2", "x", "y", "75%", "25%"} <= set(ranks)
