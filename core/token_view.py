"""The API's username-and-password → token endpoint, guarded against guessing."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import FormParser, MultiPartParser

from core.guessing import LOCKED_OUT, guess_locked_out
from core.parsers import StrictJSONParser


class GuardedObtainAuthToken(ObtainAuthToken):
    """DRF's username-and-password → token endpoint, answering 429 while the pair is locked out
    (its own `authenticate` call counts the failures)."""

    # DRF's view names its own parsers: the strict JSON one makes a NUL in a body a 400.
    parser_classes = [StrictJSONParser, FormParser, MultiPartParser]

    def post(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        """Trade your username and password for your API token

        Send them as JSON or as a form; the answer is `{"token": "…"}`, to send as
        `Authorization: Token …`. Repeated failures for one username from one address lock that
        pair out for a while (429)."""
        username = request.data.get("username", "") if hasattr(request.data, "get") else ""
        if "\x00" in str(username):
            # No database text column stores a NUL: refused before the lockout lookup.
            raise exceptions.ValidationError({"username": ["Null characters are not allowed."]})
        if guess_locked_out(request._request, {"username": str(username)}):
            raise exceptions.Throttled(detail=LOCKED_OUT)
        return super().post(request, *args, **kwargs)
