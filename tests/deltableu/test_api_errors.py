"""Services raise Django's exceptions; the API answers them as 400/403 with their message."""

from django.core.exceptions import PermissionDenied, ValidationError
from rest_framework.exceptions import NotFound

from core.api import exception_handler


def test_a_field_error_becomes_a_400_by_field():
    response = exception_handler(ValidationError({"slug": "Taken."}), {})
    assert response.status_code == 400 and response.data == {"slug": ["Taken."]}


def test_a_plain_error_becomes_a_400_list():
    response = exception_handler(ValidationError("Closed."), {})
    assert response.status_code == 400 and response.data == ["Closed."]


def test_permission_denied_keeps_its_message():
    response = exception_handler(PermissionDenied("Only the owner."), {})
    assert response.status_code == 403 and response.data == {"detail": "Only the owner."}


def test_drf_exceptions_are_left_to_drf():
    assert exception_handler(NotFound(), {}).status_code == 404


def test_input_over_a_limit_is_a_413_naming_it():
    from core.bounded import Limit, LimitExceeded

    response = exception_handler(LimitExceeded(Limit("ARCHIVE_MAX_RATIO", 100), "It inflates"), {})
    assert response.status_code == 413
    assert response.data == {
        "detail": "It inflates (limit ARCHIVE_MAX_RATIO = 100).",
        "limit": "ARCHIVE_MAX_RATIO",
        "value": 100,
    }
