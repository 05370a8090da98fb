"""``{% chart spec caption="…" %}``: a Vega-Lite spec from ``core.plots`` on a page.

Registered as the template library ``charts`` (settings ``TEMPLATES``), since ``core`` is no app.
The spec goes in as JSON through ``json_script`` (escaped, never marked safe), beside a table of
its values that stays open for readers without JavaScript; ``static/js/charts.js`` draws it.
"""

from __future__ import annotations

from django import template
from django.utils.text import slugify

from core.plots import Spec, chart_table

register = template.Library()


@register.inclusion_tag("includes/chart.html")
def chart(spec: Spec, caption: str = "") -> dict[str, object]:
    headers, rows = chart_table(spec)
    return {
        "spec": spec,
        "title": spec.get("title", ""),
        "caption": caption,
        "filename": slugify(spec.get("title", "")) or "chart",
        "headers": headers,
        "rows": rows,
    }
