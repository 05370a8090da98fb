"""The API's username-and-password → token endpoint, guarded against guessing."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authtoken.views import ObtainAuthToken

from core.guessing import LOCKED_OUT, guess_locked_out


class GuardedObtainAuthToken(ObtainAuthToken):
    """DRF's username-and-password → token endpoint, answering 429 while the pair is locked out
    (its own `authenticate` call counts the failures)."""

    def post(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        username = request.data.get("username", "") if hasattr(request.data, "get") else ""
        if guess_locked_out(request._request, {"username": str(username)}):
            raise exceptions.Throttled(detail=LOCKED_OUT)
        return super().post(request, *args, **kwargs)
