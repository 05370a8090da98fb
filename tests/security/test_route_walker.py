"""The route walker: every URL pattern and every OpenAPI operation, called by everyone who is not
the owner, never shows a canary planted in a hidden test reference, a private dataset or a private
submission, and answers for a private object exactly as for one that does not exist (404).

Routes are enumerated from the URL resolver, so a new route is walked without touching this file;
a route with a path parameter this file cannot fill fails the walk until its kind is named below.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.core.cache import cache
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from tests.schema_kit import api_schema
from tests.security.walker_world import CANARIES, HIDDEN_CANARY

pytestmark = pytest.mark.slow

MISSING = {"slug": "no-such-thing", "int": 987654, "version": "9.9.9", "name": "no-such-file"}
# The Django admin is staff-only by construction; join tokens are capabilities the owner hands
# out (anyone holding one may join), so the walk uses a made-up token.
SKIPPED_PREFIXES = ("admin/",)
PAGE_METHODS = ("get", "post")
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

    @property
    def params(self) -> list[tuple[str, str]]:
        return re.findall(r"<(?:(\w+):)?(\w+)>", self.template) and [
            (conv or "str", name) for conv, name in re.findall(r"<(?:(\w+):)?(\w+)>", self.template)
        ]

    def fill(self, values: dict[str, object]) -> str:
        return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m.group(1)]), self.template)


def _walk(patterns, prefix="") -> Iterator[str]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern)


def all_routes() -> list[Route]:
    routes = []
    for template in _walk(get_resolver().url_patterns):
        template = template.lstrip("^").rstrip("$")
        if template.startswith(SKIPPED_PREFIXES):
            continue
        routes.append(Route(template, api=template.startswith("api/")))
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
    return [(v, key != "public" and not key.startswith("hidden-")) for key, v in values.items()]


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


def _schema_methods() -> dict[str, list[str]]:
    schema = api_schema()
    methods = {}
    for path, operations in schema["paths"].items():
        template = re.sub(r"\{(\w+)\}", r"<\1>", path.lstrip("/"))
        methods[template] = [
            m for m in operations if m in ("get", "post", "put", "patch", "delete")
        ]
    return methods


def _plain(template: str) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", template)


def _body(response) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return response.content


def _client(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def _call(client, method, path):
    if method in ("post", "put", "patch"):
        return getattr(client, method)(path, {}, format="json")
    return getattr(client, method)(path)


def _leaks(response) -> list[str]:
    seen = _body(response).lower() + str(response.headers).lower().encode()
    return [canary for canary in CANARIES if canary.encode() in seen]


def _queries(world) -> str:
    """Query parameters routes read: a split filter, a comparison, a release diff."""
    submissions = world.objects["submission"]
    return (
        f"?split=test&a={submissions['private']}&b={submissions['private-dataset']}"
        "&old=1.0.0&new=1.0.0&page=1"
    )


def _uniform(persona: str, status: int) -> bool:
    """An answer that says nothing about whether the object exists: 404; or a refusal made before
    any lookup (405, a 400 on the body, and for the anonymous a login demand)."""
    return status in (400, 404, 405) or (persona == "anonymous" and status in (302, 401, 403))


def test_every_api_operation_is_a_walked_route():
    walked = {_plain(route.template) for route in all_routes()}
    missing = sorted(set(_schema_methods()) - walked)
    assert missing == [], "\n".join(missing)


def test_the_owner_sees_the_canaries_the_walk_looks_for(world):
    # Otherwise a walk that finds nothing would prove nothing.
    client = _client(world.owner)
    assert HIDDEN_CANARY.encode() in _body(client.get("/datasets/pub/export.jsonl"))
    assert set(_leaks(client.get("/api/v1/datasets/priv/items/"))) >= {"zqxprivatecanary"}


def test_no_one_but_the_owner_sees_hidden_or_private_things(world, caplog):
    caplog.set_level(logging.CRITICAL, logger="django.request")  # thousands of expected 404s
    api_methods = _schema_methods()
    leaks, not_uniform = [], []
    for persona, user in world.personas.items():
        for route in all_routes():
            methods = (
                api_methods.get(_plain(route.template), ["get"]) if route.api else PAGE_METHODS
            )
            # The walk is not a flood: throttle counts start afresh for every route (sessions
            # live in the cache too, hence a new login).
            cache.clear()
            client = _client(user)
            for method, path, private, missing_path in calls(world, route, methods):
                response = _call(client, method, path)
                found = _leaks(response)
                if method == "get":  # the same page asked for the hidden split and private rows
                    found += _leaks(_call(client, method, path + _queries(world)))
                if found:
                    leaks.append(f"{persona} {method.upper()} {path} -> {found}")
                if private:
                    baseline = _call(client, method, missing_path).status_code
                    if response.status_code != baseline or not _uniform(persona, baseline):
                        not_uniform.append(
                            f"{persona} {method.upper()} {path}: {response.status_code}, "
                            f"made-up object: {baseline}"
                        )
    assert leaks + not_uniform == [], "\n".join(["", *leaks, *not_uniform])


def test_every_text_answer_names_its_charset_and_every_page_its_policy(world, caplog):
    # The owner reaches every page and download; a text type without a charset lets a browser
    # guess (and a guessed UTF-7 or Latin-1 has been an XSS vector).
    caplog.set_level(logging.CRITICAL, logger="django.request")
    client = _client(world.owner)
    missing = []
    for route in all_routes():
        cache.clear()
        client = _client(world.owner)
        for _method, path, _private, _missing_path in calls(world, route, ["get"]):
            response = client.get(path)
            kind = response.get("Content-Type", "")
            texty = kind.startswith(("text/", "application/json", "application/jsonl"))
            if response.status_code == 200 and texty and "charset=utf-8" not in kind.lower():
                missing.append(f"{path}: {kind}")
            policy = response.get("Content-Security-Policy", "")
            if kind.startswith("text/html") and "default-src 'self'" not in policy:
                missing.append(f"{path}: no Content-Security-Policy")
    assert missing == [], "\n".join(missing)


def test_every_route_answers_head_and_options_without_a_server_error(world, caplog):
    # Clients and proxies send both unasked (CORS preflights, link checkers, monitors); the
    # Swagger page answered OPTIONS with a 500 (DRF's API description through an HTML template).
    caplog.set_level(logging.CRITICAL, logger="django.request")
    failed = []
    for persona, user in (("anonymous", None), ("owner", world.owner)):
        for route in all_routes():
            cache.clear()
            client = _client(user)
            client.raise_request_exception = False  # every failure listed, as a status
            for method, path, _private, _missing_path in calls(world, route, ["head", "options"]):
                status = _call(client, method, path).status_code
                if status >= 500:
                    failed.append(f"{persona} {method.upper()} {path}: {status}")
    assert failed == [], "\n".join(failed)
