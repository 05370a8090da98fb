"""The routes the security tests walk: every URL pattern (from the URL resolver, so a new route
is walked without touching a test), and the paths that fill each with the walker's world's
objects (and with made-up ones, for what a private object must answer alike). A path parameter
of a kind not named in `_kind` fails the walk until it is named.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver

MISSING = {"slug": "no-such-thing", "int": 987654, "version": "9.9.9", "name": "no-such-file"}
# The Django admin is staff-only by construction; join tokens are capabilities the owner hands
# out (anyone holding one may join), so the walk uses a made-up token.
SKIPPED_PREFIXES = ("admin/",)
RELEASE_FILES = (
    "manifest.json",
    "release.json",
    "README.md",
    "items.jsonl",
    "refs.dev.jsonl",
    "refs.test.jsonl",
    "references.tsv",
    "references.parquet",
    "ratings.tsv",
)


@dataclass(frozen=True)
class Route:
    template: str  # Django route with <conv:name> parameters, joined across includes
    api: bool
    name: str | None = None  # the URL pattern's name

    @property
    def params(self) -> list[tuple[str, str]]:
        """(converter, name) of each path parameter."""
        found = re.findall(r"<(?:(\w+):)?(\w+)>", self.template)
        return [(conv or "str", name) for conv, name in found]

    def fill(self, values: dict[str, object]) -> str:
        return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m.group(1)]), self.template)


def _walk(patterns, prefix="") -> Iterator[tuple[str, str | None]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.name


def all_routes() -> list[Route]:
    """Every route of the site map (Django's admin, mounted whole, left out)."""
    routes = []
    for template, name in _walk(get_resolver().url_patterns):
        template = template.lstrip("^").rstrip("$")
        if not template.startswith(SKIPPED_PREFIXES):
            routes.append(Route(template, api=template.startswith("api/"), name=name))
    return routes


def _kind(route: Route, name: str) -> str:
    """Which kind of object a path parameter names."""
    t = route.template
    if name == "slug":
        return (
            "leaderboard" if t.startswith(("leaderboards/", "api/v1/leaderboards/")) else "dataset"
        )
    known = {
        "version": "version",
        "token": "token",
        "name": "file",
        "format": "format",
        "fmt": "format",
        "judgment_set_id": "judgment_set",
        "study_id": "study",
        "run_id": "run",
        "corpus_id": "corpus",
        "reference_id": "reference",
        "submission_id": "submission",
        "campaign_id": "campaign",
        "rating_id": "rating",
        "team_id": "team",
        "metric_id": "external_metric",
    }
    if name not in known:
        raise AssertionError(f"{t}: name the kind of the path parameter <{name}> in the walker")
    return known[name]


def _candidates(world, kind: str) -> list[tuple[object, bool]]:
    """(value, names a private object) for one kind, the made-up one last."""
    objects = world.objects
    if kind == "token":
        return [("not-a-real-token", False)]
    if kind == "file":
        return [(name, False) for name in RELEASE_FILES]
    if kind == "format":
        return [(fmt, False) for fmt in ("csv", "json", "jsonl")]
    values = objects[kind]
    return [(v, not key.startswith(("public", "hidden-"))) for key, v in values.items()]


def _missing(kind: str) -> object:
    if kind == "version":
        return MISSING["version"]
    return MISSING["slug"] if kind in ("dataset", "leaderboard") else MISSING["int"]


def calls(world, route: Route, methods) -> Iterator[tuple[str, str, bool, str]]:
    """(method, path, names a private object, the same path with it made up)."""
    params = route.params or []
    options = [
        [(name, kind, value, private) for value, private in _candidates(world, kind)]
        for _conv, name in params
        for kind in [_kind(route, name)]
    ]
    for combo in itertools.product(*options):
        values = {name: value for name, _kind_, value, _p in combo}
        missing = dict(values)
        private = False
        for name, kind, _value, is_private in combo:
            if is_private:
                private = True
                missing[name] = _missing(kind)
        for method in methods:
            yield method, route.fill(values), private, route.fill(missing)
