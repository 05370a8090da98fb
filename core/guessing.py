"""Guessing secrets: a wrong password, API token or invitation link is a failed attempt for
django-axes, so one lockout (per address and what was guessed, settings AXES_*) covers all three.

(Views live in `core.token_view`: DRF imports the authentication classes named in the settings
while its views module loads, so this module imports no view.)

Passwords go through Django's `authenticate`, which axes watches by itself; tokens and invitation
links are not passwords, so their failures are reported here under a fixed pseudo-username.
"""

from __future__ import annotations

from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header

API_TOKEN = {"username": "(api token)"}
INVITATION = {"username": "(invitation link)"}
LOCKED_OUT = "Too many failed attempts from your address; try again later."


def guess_locked_out(request: HttpRequest, what: dict[str, str]) -> bool:
    return AxesProxyHandler.is_locked(request, credentials=what)


def guess_failed(request: HttpRequest, what: dict[str, str]) -> None:
    user_login_failed.send(sender=__name__, credentials=what, request=request)


class GuardedTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, locked out (429) after repeated wrong tokens."""

    def authenticate(self, request: Any) -> Any:
        if not get_authorization_header(request).lower().startswith(b"token "):
            return None
        django_request = request._request
        if guess_locked_out(django_request, API_TOKEN):
            raise exceptions.Throttled(detail=LOCKED_OUT)
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            guess_failed(django_request, API_TOKEN)
            raise
