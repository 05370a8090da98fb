"""Request types for views that only logged-in users reach (for the type checker)."""

from django.contrib.auth.models import User
from django.http import HttpRequest


class AuthenticatedRequest(HttpRequest):
    user: User
