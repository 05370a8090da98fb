"""The site map (deltableu/urls.py and deltableu/api_urls.py): every route has a name of its own
and is reached by the paths it describes, so no route hides another, whichever app it serves."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from django.urls import resolve

from tests.routes_kit import Route, all_routes

ROOT = Path(__file__).resolve().parents[2]
# An ordinary value for each converter: none of them is a word a route spells out (new/, join/).
ORDINARY = {"slug": "a-dataset", "id": "7", "int": "7", "str": "x1"}


def _filled(route: Route) -> str:
    return "/" + re.sub(r"<(\w+):\w+>", lambda m: ORDINARY[m.group(1)], route.template)


def test_every_route_has_a_name_of_its_own():
    names = Counter(route.name for route in all_routes() if route.name)
    assert [name for name, n in names.items() if n > 1] == []


def test_every_route_is_reached_by_its_own_paths():
    routes = [route for route in all_routes() if route.name]
    assert len(routes) > 100
    reached_elsewhere = {
        route.template: resolve(_filled(route)).url_name
        for route in routes
        if resolve(_filled(route)).url_name != route.name
    }
    assert reached_elsewhere == {}


def test_the_routes_are_in_the_site_map_alone():
    # A new app's routes go into the map, where an order that matters is seen.
    stray = [
        str(path.relative_to(ROOT))
        for folder in ("annotate", "scoring", "core")
        for path in (ROOT / folder).rglob("*urls.py")
    ]
    assert stray == []
