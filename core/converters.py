"""Path converters. `<id:name>` is `<int:name>` bounded to what a database key can hold: a
20-digit id in a URL would otherwise reach the database and overflow (a 500 on SQLite and
PostgreSQL alike) instead of answering 404 like any other id that does not exist.
`natural_or_none` applies the same bound to ids and numbers that come in forms and files;
`finite_or_none` reads a real number there.

Importing this module registers the converter; every URL module imports it first.
"""

from __future__ import annotations

import math
import re

from django.urls import register_converter

ID_PATTERN = "[0-9]{1,18}"
_ID = re.compile(ID_PATTERN)


def natural_or_none(text: object) -> int | None:
    """An id or a number given in a form, a query or a file: 1–18 ASCII digits, else None.
    Not `str.isdigit()`, which also takes "²" (int() then raises) and numbers of any length
    (int() raises past 4,300 digits, the database past 18)."""
    if not isinstance(text, str) or not _ID.fullmatch(text):
        return None
    return int(text)


def finite_or_none(text: object) -> float | None:
    """A number given in a form or a query, else None: also for "nan", "inf" and "1e309",
    which float() takes and which then match nothing (a filter of min_score=nan found no
    candidate, silently)."""
    try:
        value = float(text) if isinstance(text, str) else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) else None


class ObjectIdConverter:
    # No leading zero: /campaigns/007/ is not a second address of campaign 7 (nor /0/ of none).
    regex = "[1-9][0-9]{0,17}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(ObjectIdConverter, "id")
