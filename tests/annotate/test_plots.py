"""The SVG charts: well-formed, bars that add up, escaped text, edge cases."""

import re
import xml.etree.ElementTree as ET

import pytest

from annotate.plots import histogram_svg, line_svg

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg):
    return ET.fromstring(svg)  # noqa: S314 (our own output)


def bar_counts(svg):
    return [
        int(t.rsplit(": ", 1)[1]) for t in re.findall(r"<rect[^>]*><title>([^<]*)</title>", svg)
    ]


def test_a_histogram_has_one_bar_per_bin_and_counts_every_value():
    svg = histogram_svg([-1, -0.9, 0, 0.1, 0.95, 1], bins=4, lo=-1, hi=1)
    root = parse(svg)
    assert root.get("role") == "img"
    assert len(root.findall(f"{SVG}rect")) == 4
    assert bar_counts(svg) == [2, 0, 2, 2]


def test_values_outside_the_range_go_into_the_end_bins():
    assert bar_counts(histogram_svg([-5, 5], bins=2, lo=-1, hi=1)) == [1, 1]


def test_the_tallest_bar_fills_the_plot():
    root = parse(histogram_svg([0.5] * 3 + [-0.5], bins=2, lo=-1, hi=1, height=160))
    heights = sorted(float(r.get("height")) for r in root.findall(f"{SVG}rect"))
    assert heights[1] == pytest.approx(160 - 8 - 22)
    assert heights[0] == pytest.approx(heights[1] / 3, abs=0.1)


def test_an_empty_histogram_is_still_a_chart():
    assert bar_counts(histogram_svg([], bins=3)) == [0, 0, 0]


def test_a_bad_range_is_refused():
    with pytest.raises(ValueError, match="lo < hi"):
        histogram_svg([1], lo=1, hi=1)


def test_titles_are_escaped():
    svg = histogram_svg([0], title='<script>alert("x")</script>')
    assert "<script>" not in svg
    parse(svg)


def test_a_line_passes_through_every_point():
    svg = line_svg([(0, 0), (1, 4), (2, 2)], title="Ratings per hour", x_labels=("09:00", "11:00"))
    root = parse(svg)
    assert len(root.findall(f"{SVG}circle")) == 3
    assert len(root.find(f"{SVG}polyline").get("points").split()) == 3
    assert "09:00" in svg and "11:00" in svg


def test_point_labels_become_tooltips():
    svg = line_svg([(0, 1), (1, 2)], point_labels=["10:00 — 1", "11:00 — 2"])
    assert "<title>11:00 — 2</title>" in svg


def test_a_line_without_points_says_so():
    assert "No data yet" in line_svg([])
    parse(line_svg([(5, 3)]))  # a single point has no x span; still drawn
