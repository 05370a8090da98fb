"""`{% leaderboards_section %}`: the visible leaderboards, for pages outside the scoring app
(the home page), which cannot import scoring themselves."""

from __future__ import annotations

from django import template

from scoring.leaderboards.selectors.leaderboards import leaderboards_visible

register = template.Library()

HOME_LIMIT = 10


@register.inclusion_tag("scoring/includes/leaderboard_section.html", takes_context=True)
def leaderboards_section(context: template.Context) -> dict:
    request = context.get("request")
    if request is None:
        return {"boards": []}
    return {"boards": list(leaderboards_visible(user=request.user)[:HOME_LIMIT])}
