"""`{% chart %}`: the spec as inert JSON (escaped, whatever its labels say), a table of its values
open for readers without JavaScript, and a plain sentence when there is nothing to draw."""

import json
import re

from django.template import Context, Template

from core.plots import histogram, scatter

PAGE = Template('{% load charts %}{% chart spec caption="Weights, −1 to +1." %}')


def render(spec):
    return PAGE.render(Context({"spec": spec}))


def test_the_spec_is_embedded_as_json_and_its_values_as_a_table():
    html = render(scatter([(0.5, 0.25, "sys-a")], title="BLEU vs human", x_title="h", y_title="m"))
    embedded = re.search(r'<script type="application/json">(.*?)</script>', html, re.S)
    assert json.loads(embedded.group(1))["data"]["values"] == [
        {"x": 0.5, "y": 0.25, "label": "sys-a"}
    ]
    assert 'data-chart data-filename="bleu-vs-human"' in html
    assert '<details class="chart-data" open>' in html
    assert "<td>sys-a</td><td>0.5</td><td>0.25</td>" in html
    assert '<figcaption class="muted small">Weights, −1 to +1.</figcaption>' in html


def test_labels_cannot_break_out_of_the_page():
    evil = '</script><script>alert("x")</script>'
    html = render(scatter([(1, 2, evil)], title=evil, x_title="h", y_title="m"))
    assert "<script>alert" not in html and html.count("</script>") == 1
    assert "&lt;/script&gt;" in html  # in the table, escaped as text


def test_a_chart_with_nothing_to_draw_says_so():
    html = render(scatter([], title="BLEU vs human", x_title="h", y_title="m"))
    assert "No data yet for “BLEU vs human”." in html and "data-chart" not in html
    assert "data-chart" in render(histogram([], bins=3, title="W", x_title="w"))  # zero bars
