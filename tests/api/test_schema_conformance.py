"""The schema tells the truth: schemathesis calls every API operation with data generated from
the OpenAPI schema, as the owner (token) and as anonymous, and checks every answer against it —
status code documented, content type documented, body matching its schema, never a 5xx.

Runs are deterministic (derandomized) and bounded (EXAMPLES per operation); the world is built
once for the test, and destructive operations see the world change as they go (a DELETE that
succeeds, later examples 404), which the schema must describe too.
"""

from __future__ import annotations

import logging

import pytest
import schemathesis
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from deltableu.wsgi import application
from tests.security.walker_world import build_world

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=False)]

EXAMPLES = 15
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _known(world) -> dict[str, dict[str, object]]:
    """Path parameters naming objects that exist, so that operations answer with their success
    shapes too (generated values mostly find nothing: 404)."""
    objects = world.objects
    return {
        "datasets": {
            "slug": "pub",
            "version": "1.0.0",
            "name": "items.jsonl",
            "reference_id": objects["reference"]["hidden-test"],
        },
        "leaderboards": {"slug": "pub-dev", "format": "csv"},
        "campaigns": {"campaign_id": objects["campaign"]["hidden"]},
        "ratings": {"rating_id": objects["rating"]["hidden"]},
        "submissions": {"submission_id": objects["submission"]["private-dataset"]},
        "runs": {"run_id": objects["run"]["private"]},
        "judgments": {"judgment_set_id": objects["judgment_set"]["private"]},
        "studies": {"study_id": objects["study"]["private"], "fmt": "json"},
        "corpora": {"corpus_id": objects["corpus"]["private"]},
    }


def _with_known(case, known) -> None:
    if not case.path_parameters:
        return
    collection = case.operation.path.split("/")[3]  # /api/v1/<collection>/…
    values = known.get(collection, {})
    case.path_parameters = {k: values.get(k, v) for k, v in case.path_parameters.items()}


CALLS: list[int] = []


def _problems(schema, headers, known=None) -> list[str]:
    found: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def run(case):
            cache.clear()  # throttle counts: the run is not a flood
            if known is not None:
                _with_known(case, known)
            CALLS.append(1)
            try:
                case.call_and_validate(headers=headers, checks=CHECKS)
            except (Exception, BaseExceptionGroup) as exc:  # every operation's first problem
                found.append(f"{case.operation.label}: {' | '.join(str(exc).splitlines()[:14])}")
                raise

        try:
            run()
        except (Exception, BaseExceptionGroup) as exc:  # recorded, or the run itself failed
            if not found or operation.label not in found[-1]:
                found.append(f"{operation.label}: run failed: {exc!r}"[:500])
    return found


@pytest.fixture
def in_process_wsgi():
    # Django's own test client keeps the test's database connection open across requests;
    # schemathesis calls the WSGI application directly, so do as the test client does.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def world(settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    with django_capture_on_commit_callbacks(execute=False):
        return build_world()


def test_every_answer_matches_the_schema(world, in_process_wsgi, caplog):
    caplog.set_level(logging.CRITICAL)
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", in_process_wsgi)
    token = Token.objects.create(user=world.owner)
    owner = {"Authorization": f"Token {token.key}"}
    problems = _problems(schema, owner)
    problems += [f"anonymous {p}" for p in _problems(schema, {})]
    problems += [f"existing objects {p}" for p in _problems(schema, owner, _known(world))]
    assert problems == [], "\n".join(problems)
    operations = sum(1 for _ in schema.get_all_operations())
    # Every operation was called, several times in each of the three passes.
    assert operations > 55 and len(CALLS) > 6 * operations, (operations, len(CALLS))
