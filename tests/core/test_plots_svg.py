"""The last hand-written SVG charts (core/plots_svg.py), kept while the study draws with them:
well-formed, values on the axes, tooltips, edge cases. They go with the module."""

import xml.etree.ElementTree as ET

from core.plots_svg import line_svg, scatter_svg, ticks

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg):
    return ET.fromstring(svg)  # noqa: S314 (our own output)


def axis_labels(svg):
    """(x, y, text) of every label drawn beside the axes."""
    return [(float(t.get("x")), float(t.get("y")), t.text) for t in parse(svg).iter(f"{SVG}text")]


def test_a_line_passes_through_every_point():
    hours = ["09:00", "10:00", "11:00"]
    svg = line_svg(
        [(0, 0), (1, 4), (2, 2)],
        title="Ratings per hour",
        x_format=lambda i: hours[int(i)] if i == int(i) else "",
    )
    root = parse(svg)
    assert len(root.findall(f"{SVG}circle")) == 3
    assert len(root.find(f"{SVG}polyline").get("points").split()) == 3
    assert {"09:00", "10:00", "11:00"} <= {text for _, _, text in axis_labels(svg)}


def test_round_ticks_cover_the_range():
    assert ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert ticks(0, 37) == [0, 10, 20, 30]
    assert ticks(1, 4) == [1, 2, 3, 4]
    assert ticks(-1, 0.8) == [-1, -0.5, 0, 0.5]


def test_a_sweep_has_values_on_both_axes():
    svg = line_svg([(1, 0.2), (2, 0.5), (5, 0.9), (10, 0.4)], title="ρ by unit size")
    labels = axis_labels(svg)
    bottom = 160 - 22 + 14
    x_ticks = [(x, text) for x, y, text in labels if y == bottom]
    y_ticks = [(y, text) for x, y, text in labels if x == 36 - 4]
    assert [text for _, text in x_ticks] == ["2", "4", "6", "8", "10"]
    assert [text for _, text in y_ticks] == ["0", "0.2", "0.4", "0.6", "0.8", "1"]
    assert [x for x, _ in x_ticks] == sorted(x for x, _ in x_ticks)  # left to right
    assert [y for y, _ in y_ticks] == sorted((y for y, _ in y_ticks), reverse=True)  # upwards


def test_a_descending_x_axis_puts_the_largest_value_on_the_left():
    svg = line_svg([(0.8, 0.1), (0.0, 0.5), (-1.0, 0.3)], x_descending=True)
    bottom = 160 - 22 + 14
    x_ticks = sorted((x, text) for x, y, text in axis_labels(svg) if y == bottom)
    assert [text for _, text in x_ticks] == ["0.5", "0", "-0.5", "-1"]
    points = parse(svg).find(f"{SVG}polyline").get("points").split()
    assert float(points[0].split(",")[0]) < float(points[-1].split(",")[0])  # 0.8 left of -1


def test_point_labels_become_tooltips():
    svg = line_svg([(0, 1), (1, 2)], point_labels=["10:00 — 1", "11:00 — 2"])
    assert "<title>11:00 — 2</title>" in svg


def test_a_line_without_points_says_so():
    assert "No data yet" in line_svg([])
    parse(line_svg([(5, 3)]))  # a single point has no x span; still drawn


def test_a_scatter_labels_each_dot_and_escapes_it():
    svg = scatter_svg([(0.1, 0.2, "sys <a>"), (0.3, 0.5, "b")], x_title="human", y_title="BLEU")
    assert len(parse(svg).findall(f"{SVG}circle")) == 2
    assert "sys &lt;a&gt;" in svg and "<a>" not in svg
