"""Small pieces shared by the REST API views of both apps."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import ValidationError


def drf_validation_error(exc: DjangoValidationError) -> ValidationError:
    """A service's ValidationError as the API's 400: field errors by field, others as a list."""
    return ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
