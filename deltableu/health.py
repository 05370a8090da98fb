"""`/healthz`: is the database reachable, is the broker reachable — and which one is not."""

from __future__ import annotations

import logging

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from deltableu.celery import app as celery_app

logger = logging.getLogger(__name__)
BROKER_TIMEOUT_SECONDS = 3


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def _broker() -> str:
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
    return "ok"


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {}
    for name, check in (("database", _database), ("broker", _broker)):
        try:
            checks[name] = check()
        except Exception:  # any failure means "down": the log says why, the answer only which
            logger.exception("health check %s failed", name)
            checks[name] = "down"
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "down", **checks}, status=200 if healthy else 503
    )
