"""Path converters. `<id:name>` is `<int:name>` bounded to what a database key can hold: a
20-digit id in a URL would otherwise reach the database and overflow (a 500 on SQLite and
PostgreSQL alike) instead of answering 404 like any other id that does not exist.

Importing this module registers the converter; every URL module imports it first.
"""

from __future__ import annotations

from django.urls import register_converter


class ObjectIdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(ObjectIdConverter, "id")
