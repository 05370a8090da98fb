"""Every field of every API operation's request body, given a value of the wrong type or out of
any range (null, a list, an object, 100,000 characters, a number past 64 bits, NUL, a path…),
never answers 500: the owner's request is refused with a 4xx naming the field, or succeeds.
Each request's writes are rolled back after it. The schemathesis sweep (tests/api) sends only
bodies the schema allows; this sends the ones it does not."""

from __future__ import annotations

import json
import re

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from tests.routes_kit import Route, calls
from tests.schema_kit import api_schema
from tests.writes_kit import status_undone

pytestmark = pytest.mark.slow  # a few thousand requests: make test and CI, not test-fast

HOSTILE = (
    None,
    [],
    {},
    "x" * 100_000,
    99999999999999999999,
    -1,
    1e308,
    "\x00",
    True,
    [1] * 1000,
    {"a": {"b": {"c": 1}}},
    "../../etc/passwd",
    "",
)


def body_fields(schema: dict, operation: dict) -> list[str]:
    """The properties of the operation's JSON (or form) request body."""
    content = operation.get("requestBody", {}).get("content", {})
    media = content.get("application/json") or content.get("multipart/form-data") or {}
    body = media.get("schema", {})
    if "$ref" in body:
        body = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
    return list(body.get("properties", {}))


def test_no_api_field_answers_500_to_a_hostile_value(world):
    schema = api_schema()
    client = APIClient()
    client.force_login(world.owner)
    client.raise_request_exception = False  # a crash is a 500 to report, not a test error
    statuses: dict[int, int] = {}
    crashed = []
    for path, operations in schema["paths"].items():
        route = Route(re.sub(r"\{(\w+)\}", r"<\1>", path.lstrip("/")), api=True)
        for method, operation in operations.items():
            if method not in ("post", "put", "patch"):
                continue
            for _, url, _, _ in calls(world, route, [method]):
                for name in body_fields(schema, operation):
                    for value in HOSTILE:
                        cache.clear()  # the throttles would answer 429 before the field is read
                        body = json.dumps({name: value})
                        send = getattr(client, method)
                        status = status_undone(
                            lambda: send(url, body, content_type="application/json")  # noqa: B023
                        )
                        statuses[status] = statuses.get(status, 0) + 1
                        if status >= 500:
                            crashed.append(f"{method.upper()} {url} {name}={value!r:.24}")
    assert crashed == []
    assert statuses.get(400, 0) > 2000  # the walk reached the operations' validation
