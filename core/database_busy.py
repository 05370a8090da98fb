"""A database too busy to take a write answers 503 with Retry-After, on every route, never 500.

On the embedded default (SQLite), one connection at a time holds the write lock; the others wait
up to the database's timeout (settings: `OPTIONS["timeout"]`) and then fail with "database is
locked". Work keeps its write transactions short, so a wait that runs out means a moment of
unusual load: the request did nothing (its transaction was rolled back) and can be sent again.
A client is told so, with when: the API answers its usual `{"detail": …}` body, a page a short
one that reloads itself after a GET. PostgreSQL's lock timeout (SQLSTATE 55P03) is the same
situation and gets the same answer.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

# Long enough for the usual write (a rating, a chunk of a worker's rows) to finish, short enough
# that a rater hardly notices the pause.
RETRY_AFTER_SECONDS = 2
SQLITE_BUSY_MESSAGES = ("database is locked", "database table is locked")
POSTGRES_LOCK_NOT_AVAILABLE = "55P03"
API_DETAIL = "The database is busy; nothing was changed. Send the request again in a moment."


def is_database_busy(exception: BaseException) -> bool:
    """Whether `exception` is a lock wait that ran out (SQLite's busy or PostgreSQL's lock
    timeout), as opposed to any other database error."""
    if not isinstance(exception, OperationalError):
        return False
    cause = exception.__cause__
    if getattr(cause, "pgcode", None) == POSTGRES_LOCK_NOT_AVAILABLE:
        return True
    if getattr(cause, "sqlstate", None) == POSTGRES_LOCK_NOT_AVAILABLE:
        return True
    return str(exception).lower().startswith(SQLITE_BUSY_MESSAGES)


def database_busy_response(request: HttpRequest) -> HttpResponse:
    """The 503 of a request that found the database busy: JSON under /api/, a page elsewhere."""
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": API_DETAIL}, status=503)
    else:
        # Rendered without the request: the page must not need the database that is busy
        # (the signed-in user, the session), so it shows the signed-out header.
        context = {"retry_after": RETRY_AFTER_SECONDS, "reload": request.method == "GET"}
        response = HttpResponse(render_to_string("503.html", context), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseBusyMiddleware:
    """Turns a view's lock wait that ran out (DRF re-raises what its handler does not know)
    into `database_busy_response`; every other exception goes on as before."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_database_busy(exception):
            return None
        return database_busy_response(request)
