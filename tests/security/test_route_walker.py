"""The route walker: every URL pattern and every OpenAPI operation, called by everyone who is not
the owner, never shows a canary planted in a hidden test reference, a private dataset or a private
submission, and answers for a private object exactly as for one that does not exist (404). And a
GET of every route, by anyone, changes no row: a link preview or a browser's prefetch is a GET.

Routes are enumerated from the URL resolver (tests/routes_kit.py), so a new route is
walked without touching this file; a route with a path parameter the kit cannot fill fails the
walk until its kind is named there.
"""

from __future__ import annotations

import logging
import re

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.routes_kit import all_routes, calls
from tests.schema_kit import api_schema
from tests.security.walker_world import CANARIES, HIDDEN_CANARY, PASSWORD

pytestmark = pytest.mark.slow

PAGE_METHODS = ("get", "post")
# A statement that changes rows. Left out: the session table (a GET may remember things in the
# visitor's own session: a flash message, the last answer to offer for undo) and the brute-force
# guard's records (a guessed invitation token counts as a failed login, whatever the method).
WRITE_STATEMENT = re.compile(r"^\s*(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|COPY)\b", re.IGNORECASE)
BOOKKEEPING_TABLES = ('"django_session"', '"axes_accessattempt"', '"axes_accesslog"')


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
                    made_up = _call(client, method, missing_path)
                    baseline = made_up.status_code
                    # A rater's own campaign sends a refused answer back to its page, with one
                    # message for someone else's item and a made-up one: the same redirect.
                    same_redirect = baseline == 302 and response.get("Location") == made_up.get(
                        "Location"
                    )
                    uniform = _uniform(persona, baseline) or same_redirect
                    if response.status_code != baseline or not uniform:
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


def _row_writes(queries) -> list[str]:
    return [
        q["sql"][:120]
        for q in queries
        if WRITE_STATEMENT.match(q["sql"]) and not any(t in q["sql"] for t in BOOKKEEPING_TABLES)
    ]


def _get_paths(world, route) -> list[str]:
    paths = [path for _m, path, _p, _missing in calls(world, route, ["get"])]
    if route.name == "campaign-join":  # the walk's made-up token, then a real link as sent out
        real = route.fill({"token": world.join_token})
        paths += [real, real + "?PROLIFIC_PID=walker_1"]
    return [*paths, *(path + _queries(world) for path in paths)]


def test_no_get_changes_a_row(world, caplog, django_capture_on_commit_callbacks):
    # Every write statement is counted, not rows compared before and after: a snapshot of every
    # table would be slow, and would miss a write that puts back what was there (a lease taken
    # and dropped, a timestamp set to itself). Work queued for after the commit (a Celery task)
    # is a write by proxy and counts too. The test's transaction never commits, so those
    # callbacks are captured, not run.
    caplog.set_level(logging.CRITICAL, logger="django.request")
    # A user made outside the accounts services (createsuperuser) has no profile yet.
    bare = User.objects.create_user(username="bare", password=PASSWORD, is_staff=True)
    writes = []
    for persona, user in {"owner": world.owner, "bare": bare, **world.personas}.items():
        for route in all_routes():
            cache.clear()
            client = _client(user)
            for path in _get_paths(world, route):
                reset_queries()  # the log keeps 9,000 queries: a full one would capture none
                with (
                    CaptureQueriesContext(connection) as queries,
                    django_capture_on_commit_callbacks() as queued,
                ):
                    client.get(path)
                found = _row_writes(queries) + [f"queued {c!r}" for c in queued]
                writes += [f"{persona} GET {path}: {sql}" for sql in found]
    assert writes == [], "\n".join(["", *writes])
