"""Helpers of the tests that throw writes at every admin page and form: each request's writes
rolled back after it, and the forms a page shows, read from its HTML."""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser

from django.db import transaction


class _Undo(Exception):
    """Raised to roll back what one request wrote, carrying its status out."""


def status_undone(send: Callable) -> int:
    """The status of `send()`'s response; what the request wrote is rolled back after it."""
    try:
        with transaction.atomic():
            raise _Undo(send().status_code)
    except _Undo as undone:
        return undone.args[0]


class PostForms(HTMLParser):
    """The POST forms of a page: (action, {field: the value a browser would send as is}), and
    the names of their file fields."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, str]]] = []
        self.file_fields: set[str] = set()
        self._in_post = False
        self._select = ""
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {name: value or "" for name, value in attrs}
        if tag == "form":
            self._in_post = a.get("method", "").lower() == "post"
            if self._in_post:
                self.forms.append((a.get("action", ""), {}))
        elif tag == "option" and self._select:
            fields = self.forms[-1][1]
            if "selected" in a or not fields[self._select]:
                fields[self._select] = a.get("value", "")
        elif tag == "button" and self._in_post and a.get("name"):
            self.forms[-1][1].setdefault(a["name"], a.get("value", ""))  # the first button's
        elif tag in ("input", "select", "textarea") and self._in_post and a.get("name"):
            fields = self.forms[-1][1]
            self._select = a["name"] if tag == "select" else ""
            if a.get("type") == "file":
                self.file_fields.add(a["name"])
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                fields.setdefault(a["name"], a.get("value", "on"))  # one of the choices
            else:
                fields[a["name"]] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_post = False
        if tag in ("form", "select"):
            self._select = ""
