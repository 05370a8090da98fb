"""A service's refusal (a ValidationError), shown where the user is: as a message on the page a
form action redirects to, on the confirmation page that asked, or as a management command's
error and exit status."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management.base import CommandError
from django.http import HttpRequest

from core.errors import Conflict


def succeeded(request: HttpRequest, service: Callable[..., Any], /, **kwargs: Any) -> bool:
    """Call ``service(**kwargs)``; whether it went through. A ValidationError it raises becomes
    an error message (its reasons, joined) for the next page instead of an error page."""
    try:
        service(**kwargs)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return False
    return True


def refusal(service: Callable[..., Any], /, **kwargs: Any) -> tuple[str, int | None]:
    """Call ``service(**kwargs)`` for a confirmation page: ("", None) when it went through, else
    its refusal and the page's status (400 for a ValidationError, 409 for a Conflict: something
    else keeps the object)."""
    try:
        service(**kwargs)
    except ValidationError as exc:
        return " ".join(exc.messages), 400
    except Conflict as exc:
        return str(exc), 409
    return "", None


@contextmanager
def refusal_as_command_error() -> Iterator[None]:
    """A service's ValidationError or PermissionDenied inside the block ends the command with
    its messages, as a CommandError (a message and an exit status, not a traceback)."""
    try:
        yield
    except ValidationError as exc:
        raise CommandError(" ".join(exc.messages)) from None
    except PermissionDenied as exc:
        raise CommandError(str(exc) or "Not allowed.") from None
