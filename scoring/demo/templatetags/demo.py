"""`{% demo_tour %}`: the demo's pages on the home page, which cannot import scoring itself."""

from __future__ import annotations

from urllib.parse import urlencode

from django import template
from django.urls import reverse

from scoring.demo.selectors import Stop
from scoring.demo.selectors import demo_tour as tour_stops

register = template.Library()


def tour_link(stop: Stop, username: str | None) -> str:
    """Where a stop's link goes for the user: its page, or — for a page that belongs to other
    demo logins (the owner's dashboards, a rater's page), which would answer this user a 404 —
    the log-in form, which names them, to switch to one of them and land on it."""
    if username is None or not stop.logins or username in stop.logins:
        return stop.url
    return f"{reverse('login')}?{urlencode({'next': stop.url, 'login_as': ','.join(stop.logins)})}"


@register.inclusion_tag("demo/tour.html", takes_context=True)
def demo_tour(context: template.Context) -> dict:
    user = context.get("user")
    username = user.get_username() if user is not None and user.is_authenticated else None
    return {"stops": [(stop, tour_link(stop, username)) for stop in tour_stops()]}
