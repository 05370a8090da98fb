"""HTTP at the edges, for every route: requests refused before any view runs, Django's own
errors in the API's shape, and redirects that keep a write.

Percent-escapes decode to characters no database text column stores (PostgreSQL refuses NUL in
text and jsonb), so a `?split=%00` reaching a query would be a server error. One check here
answers 400, naming the parameter, for every route; so do more query parameters than Django
reads. Pages take GET, HEAD and POST only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.core.files.storage import default_storage
from django.core.handlers.exception import response_for_exception
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseBase,
    HttpResponseNotAllowed,
    HttpResponsePermanentRedirect,
    JsonResponse,
)
from django.middleware.common import CommonMiddleware
from django.utils.cache import get_conditional_response
from django.utils.http import escape_leading_slashes

from core.errors import NotFound
from core.ranges import BoundedReader, RangeNotSatisfiable, requested_range


def _bad(text: str) -> bool:
    return "\x00" in text


def malformed_request_problem(request: HttpRequest) -> str:
    """What is wrong with the request line, or "" when nothing is."""
    if _bad(request.path):
        return "the path contains a NUL character"
    try:
        parameters = request.GET.lists()
    except TooManyFieldsSent:  # and the debug page, reading them again, failed: a 500
        return f"more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} query parameters"
    for key, values in parameters:
        if _bad(key) or any(_bad(value) for value in values):
            return f"the query parameter {key.replace(chr(0), '')!r} contains a NUL character"
    return ""


class RejectMalformedRequestMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problem = malformed_request_problem(request)
        if not problem:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": f"Bad request: {problem}."}, status=400)
        return HttpResponseBadRequest(
            f"Bad request: {problem}.", content_type="text/plain; charset=utf-8"
        )


# Pages (not the API, whose views answer 405 themselves) take these methods; a page's function
# view runs its GET code for any other (a DELETE, an OPTIONS), and the campaign link joined
# whoever sent one.
PAGE_METHODS = ("GET", "HEAD", "POST")


class PageMethodsMiddleware:
    """A page asked with a method pages do not take answers 405, before any view runs."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in PAGE_METHODS or request.path.startswith("/api/"):
            return self.get_response(request)
        return HttpResponseNotAllowed(PAGE_METHODS, content_type="text/plain; charset=utf-8")


# Downloads by file extension; every text type says its charset (a browser must not guess).
DOWNLOAD_TYPES = {
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".jsonl": "application/jsonl; charset=utf-8",
    ".tsv": "text/tab-separated-values; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".zip": "application/zip",
    ".parquet": "application/vnd.apache.parquet",
}


def download_content_type(name: str) -> str:
    """The Content-Type of a stored file served for download, from its name."""
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return DOWNLOAD_TYPES.get(suffix, "application/octet-stream")


TEXT_TYPES = (
    "text/",
    "application/json",
    "application/jsonl",
    "application/x-ndjson",
    "application/vnd.oai.openapi",  # the schema, as YAML or JSON
)


class CharsetMiddleware:
    """Every text answer names its charset: whatever built it (a view, DRF, a file download),
    a text type without one gets `charset=utf-8`, so a browser never has to guess."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        kind = response.get("Content-Type", "")
        if kind.startswith(TEXT_TYPES) and "charset=" not in kind.lower():
            response["Content-Type"] = f"{kind}; charset=utf-8"
        return response


class NotFoundMiddleware:
    """Selectors raise `core.errors.NotFound`, knowing nothing of HTTP; a page answers it
    exactly as Django answers its own Http404 (the debug page, or `not_found` below). The API
    answers it in its exception handler (core.api), before it reaches here."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, NotFound):
            return None
        return response_for_exception(request, Http404(*exception.args))


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """The 404 of a URL that matches no route: JSON under /api/ (what API clients parse), the
    site's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception or Exception("Not found"))


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's own 400 (a body over DATA_UPLOAD_MAX_MEMORY_SIZE, too many form fields, a Host
    not allowed): JSON under /api/, as every other API error, plain text elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return HttpResponseBadRequest("Bad request.", content_type="text/plain; charset=utf-8")


class HttpResponsePermanentRedirectKeepingMethod(HttpResponsePermanentRedirect):
    status_code = 308  # the client sends the same method and body again


class SlashAppendingMiddleware(CommonMiddleware):
    """Django's CommonMiddleware, except that a write sent without the route's trailing slash
    (`POST /api/v1/teams`) is redirected with a 308, which keeps its method and body. Django's
    301 makes clients send it again as a GET, and under DEBUG (`make run`) it raised a
    RuntimeError instead: a 500."""

    def get_full_path_with_slash(self, request: HttpRequest) -> str:
        return escape_leading_slashes(request.get_full_path(force_append_slash=True))

    def process_request(self, request: HttpRequest) -> HttpResponsePermanentRedirect | None:
        return self._keeping_method(request, super().process_request(request))

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> Any:
        return self._keeping_method(request, super().process_response(request, response))

    def _keeping_method(self, request: HttpRequest, response: Any) -> Any:
        if (
            isinstance(response, HttpResponsePermanentRedirect)
            and request.method not in ("GET", "HEAD")
            and response["Location"] == self.get_full_path_with_slash(request)
        ):
            return HttpResponsePermanentRedirectKeepingMethod(response["Location"])
        return response


def stored_download(
    request: HttpRequest, stored_name: str, filename: str, *, sha256: str, attachment: bool = True
) -> HttpResponseBase:
    """A stored file whose SHA-256 is known (a release's files and archive): the hash is its
    ETag, so a client that has it gets a 304 (If-None-Match) and a write-if-unchanged check a
    412 (If-Match), without the file being read. A `Range` of one span resumes a download
    (206; a start past the end is a 416), see core.ranges."""
    etag = f'"{sha256}"' if sha256 else None
    unchanged = get_conditional_response(request, etag=etag)
    if unchanged is not None:
        return unchanged
    asked = request.headers.get("Range") if request.method in ("GET", "HEAD") else None
    span, size = None, 0
    if asked:  # the size is one more storage call (a request, on S3): only for a range
        size = default_storage.size(stored_name)
        try:
            span = requested_range(asked, size, if_range=request.headers.get("If-Range"), etag=etag)
        except RangeNotSatisfiable:
            refused = HttpResponse(status=416)
            refused["Content-Range"] = f"bytes */{size}"
            return refused
    file = default_storage.open(stored_name, "rb")
    if span is not None:
        file.seek(span[0])
    response = FileResponse(
        file if span is None else BoundedReader(file, span[1] - span[0] + 1),
        status=200 if span is None else 206,
        as_attachment=attachment,
        filename=filename,
        content_type=download_content_type(filename),
    )
    response["Accept-Ranges"] = "bytes"
    if span is not None:
        response["Content-Range"] = f"bytes {span[0]}-{span[1]}/{size}"
        response["Content-Length"] = str(span[1] - span[0] + 1)
    if etag:
        response["ETag"] = etag
    return response
