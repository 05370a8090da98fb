"""Helpers for the server-rendered forms of both apps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.converters import natural_or_none
from core.refusals import refusal

T = TypeVar("T")


def form_call(form: forms.BaseForm, service: Callable[..., T], /, **kwargs: Any) -> T | None:
    """`service(**kwargs)` for a valid form, or None with the service's refusal shown on the
    form (see form_add_service_errors) so that the page renders it again."""
    try:
        return service(**kwargs)
    except ValidationError as exc:
        form_add_service_errors(form, exc)
        return None


def form_add_service_errors(form: forms.BaseForm, exc: ValidationError) -> None:
    """Show a service's ValidationError on the form: by field where the form has the field."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc.messages)
        return
    for name, errors in exc.message_dict.items():
        form.add_error(name if name in form.fields else None, errors)


def form_errors_text(form: forms.BaseForm) -> str:
    """Each error after its field's label, in one line: the message for a page that a form
    posted from elsewhere (a dashboard section) redirects back to."""
    return " ".join(
        f"{form.fields[name].label if name in form.fields else 'Form'}: "
        + " ".join(str(error) for error in errors)
        for name, errors in form.errors.items()
    )


class LimitedFileField(forms.FileField):
    """A file upload refused above the size a setting names (read at each upload, so a deployment
    or a test can change it), with the limit in the message."""

    def __init__(self, *args, limit_setting: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.limit_setting = limit_setting

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        limit = getattr(settings, self.limit_setting)
        if upload is not None and upload.size > limit:
            raise ValidationError(f"The file is larger than {limit // (1024 * 1024)} MB.")
        return upload


class RowsField(forms.ModelMultipleChoiceField):
    """Rows chosen by id (check boxes, a multiple select). Each value must be an id as the
    database's keys are (natural_or_none) before it reaches a query: Django's own field sends
    any digits, and SQLite then fails on a number past 64 bits (a 500, not a form error)."""

    def _check_values(self, value):
        for pk in value:
            if natural_or_none(str(pk)) is None:
                raise ValidationError(
                    self.error_messages["invalid_pk_value"],
                    code="invalid_pk_value",
                    params={"pk": pk},
                )
        return super()._check_values(value)


@dataclass(frozen=True)
class Confirmation:
    """What a confirmation page's POST came to: done, or refused with the message and status of
    the page shown again; nothing yet on a GET."""

    done: bool = False
    error: str = ""
    status: int | None = None


def confirmation_post(
    request: HttpRequest, service: Callable[..., Any], /, *, success: str, **kwargs: Any
) -> Confirmation:
    """On a POST, `service(confirm=<the name the user typed>, **kwargs)`: done, with `success`
    as the next page's message, or its refusal (core.refusals.refusal) for the page again."""
    if request.method != "POST":
        return Confirmation()
    error, status = refusal(service, confirm=request.POST.get("confirm", ""), **kwargs)
    if error:
        return Confirmation(error=error, status=status)
    messages.success(request, success)
    return Confirmation(done=True)


def confirmation_page(
    request: HttpRequest, answer: Confirmation = Confirmation(), /, **context: Any
) -> HttpResponse:
    """The page of an act that cannot be undone (templates/confirm.html; includes/confirm.html
    lists the context it takes): a 400 with the answer's error unless its status names another."""
    error, status = answer.error, answer.status
    context = {"hidden": {}, "error": error, **context}
    return render(request, "confirm.html", context, status=status or (400 if error else 200))


def deletion_page(
    request: HttpRequest, answer: Confirmation, /, *, kind: str, name: str, **context: Any
) -> HttpResponse:
    """The confirmation page of deleting the `kind` called `name`, confirmed by typing the name
    (the other context as confirmation_page takes it)."""
    return confirmation_page(
        request,
        answer,
        heading=f"Delete the {kind} {name}",
        expected=name,
        button=f"Delete this {kind}",
        **context,
    )
