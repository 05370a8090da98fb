"""`{% demo_tour %}`: the demo's pages on the home page, which cannot import scoring itself."""

from __future__ import annotations

from django import template

from scoring.demo.selectors import demo_tour as tour_stops

register = template.Library()


@register.inclusion_tag("demo/tour.html")
def demo_tour() -> dict:
    return {"stops": tour_stops()}
