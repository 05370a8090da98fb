"""Pieces shared by the REST API views of both apps."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import QuerySet
from drf_spectacular import openapi
from drf_spectacular.plumbing import get_doc
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.bounded import LimitExceeded
from core.errors import Conflict, NotFound


class _ConflictError(exceptions.APIException):
    status_code = 409
    default_code = "conflict"


def drf_validation_error(exc: DjangoValidationError) -> exceptions.ValidationError:
    """A service's ValidationError as the API's 400: field errors by field, others as a list."""
    detail = exc.message_dict if hasattr(exc, "error_dict") else exc.messages
    return exceptions.ValidationError(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Services raise Django's exceptions; the API answers them like DRF's own, message kept.

    (DRF alone turns Django's PermissionDenied into a generic 403 and does not know Django's
    ValidationError at all, which would be a 500.) Selectors' `core.errors.NotFound` is the 404
    Django's Http404 was, message kept; a service's `core.errors.Conflict` is a 409. Input over
    a size limit is a 413 whose body names the limit, so a client can tell "too big" from
    "wrong".
    """
    if isinstance(exc, LimitExceeded):
        body = {"detail": exc.messages[0], "limit": exc.limit.setting, "value": exc.limit.value}
        return Response(body, status=413)
    if isinstance(exc, NotFound):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, Conflict):
        exc = _ConflictError(str(exc))
    elif isinstance(exc, DjangoValidationError):
        exc = drf_validation_error(exc)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    request = context.get("request")
    if response is not None and request is not None:
        # Errors are JSON whatever the operation's own format (a CSV export's 404 too).
        request.accepted_renderer = JSONRenderer()
        request.accepted_media_type = "application/json"
    return response


class Page(serializers.Serializer):
    # What `paginated` builds: one page of a list. (A docstring would describe every page in
    # the schema.)
    pass


def paginated(serializer_class: type[serializers.Serializer]) -> serializers.Serializer:
    """The documented shape of a page of `serializer_class` rows (PageNumberPagination)."""
    name = serializer_class.__name__.removesuffix("Serializer").removesuffix("Output")
    fields = {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": serializer_class(many=True),
    }
    return type(f"Paginated{name}List", (Page,), fields)()


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's schema, with a page of a list named as the list it is, and each
    operation documented by its method's docstring: the first paragraph is its summary (the
    line the docs list it by), the rest its description."""

    def _docstring_paragraphs(self) -> list[str]:
        method = getattr(self.view, getattr(self.view, "action", self.method.lower()), None)
        doc = get_doc(method) if method is not None else ""
        return [paragraph.strip() for paragraph in doc.split("\n\n") if paragraph.strip()]

    def get_summary(self) -> str | None:
        paragraphs = self._docstring_paragraphs()
        return " ".join(paragraphs[0].split()) if paragraphs else None

    # drf-spectacular declares it so too (DRF's base takes a path and a method).
    def get_description(self) -> str:  # type: ignore[override]
        paragraphs = self._docstring_paragraphs()
        # Without a docstring of its own, drf-spectacular's choice (the view class's docstring).
        return "\n\n".join(paragraphs[1:]) if paragraphs else super().get_description()

    def get_operation_id(self) -> str:
        # A page is one object, so drf-spectacular names it `…_retrieve`, which is the detail
        # view's name too (`spectacular --fail-on-warn` fails on the collision).
        operation_id = super().get_operation_id()
        if self.method == "GET" and isinstance(self.get_response_serializers(), Page):
            return f"{operation_id.removesuffix('_retrieve')}_list"
        return operation_id


def page_response(
    request: Request,
    rows: QuerySet[Any] | Sequence[Any],
    serializer_class: type[serializers.Serializer],
    **kwargs: Any,
) -> Response:
    """The page of `rows` that the request asks for, as `paginated(serializer_class)` documents.

    `kwargs` go to the serializer (a ``context``, say).
    """
    paginator = PageNumberPagination()
    page = paginator.paginate_queryset(rows, request)
    return paginator.get_paginated_response(serializer_class(page, many=True, **kwargs).data)


def id_list_field(*, most: int, help_text: str) -> serializers.ListField:
    """A request field listing 1 to `most` row ids (each a positive 64-bit integer, as the
    database's keys are)."""
    return serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        min_length=1,
        max_length=most,
        help_text=help_text,
    )


def name_list_field(
    *, most: int, longest: int, help_text: str | None = None
) -> serializers.ListField:
    """An optional request field listing up to `most` names of up to `longest` characters each
    (an empty list when left out)."""
    return serializers.ListField(
        child=serializers.CharField(max_length=longest),
        required=False,
        default=list,
        max_length=most,
        help_text=help_text,
    )


def confirmation_field(name: str, *, because: str) -> serializers.CharField:
    """The request field that confirms a final operation: `name` typed out (`because`: why it
    must be)."""
    return serializers.CharField(help_text=f"{name}, typed out: {because}.")


def validated_input(
    serializer_class: type[serializers.Serializer],
    request: Request,
    *,
    answer: serializers.Serializer | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """The request's data as ``serializer_class`` cleans it (a 400 naming each bad field).

    With `answer` (a PATCH's: the serializer of what the operation answers), a field the
    operation cannot change is a 400 naming it, not silently dropped: `{"scale_max": 7}`
    answered 200 and changed nothing, which read as done. A field sent back unchanged from the
    answer passes: a client may send back what it read, with one field edited. The answer's
    data is read only then (it may cost queries)."""
    data = serializer_class(data=request.data, **kwargs)
    if answer is not None and hasattr(request.data, "keys"):
        takes = sorted(name for name, field in data.fields.items() if not field.read_only)
        unknown = sorted(set(request.data.keys()) - set(takes))
        if unknown:
            now = json.loads(json.dumps(answer.data, cls=DjangoJSONEncoder))
            unknown = [k for k in unknown if k not in now or now[k] != request.data[k]]
        if unknown:
            message = f"This cannot be changed here; what can: {', '.join(takes)}."
            raise exceptions.ValidationError({name: [message] for name in unknown})
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


def deletion_refused(why: str) -> OpenApiResponse:
    """The documented 409 of a deletion that something prevents (the service's `Conflict`,
    whose message the answer's detail carries)."""
    return OpenApiResponse(description=f"{why}: named in `detail`; nothing was deleted.")


def problems_response(detail: str, problems: list[dict[str, Any]]) -> Response:
    """The 400 of an upload that was refused whole: why, and every problem by file and line."""
    return Response({"detail": detail, "problems": problems}, status=400)
