"""Helpers for the server-rendered forms of both apps."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError


def form_add_service_errors(form: forms.BaseForm, exc: ValidationError) -> None:
    """Show a service's ValidationError on the form: by field where the form has the field."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc.messages)
        return
    for name, errors in exc.message_dict.items():
        form.add_error(name if name in form.fields else None, errors)
