"""The REST API's JSON parser: DRF's, with the strict rules of `core.strict_json`.

Kept apart from the API's other shared pieces: DRF imports the parser classes named in the
settings while its views module loads, so this module may import nothing that imports views.
"""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.parsers import JSONParser

from core import strict_json


class StrictJSONParser(JSONParser):
    """A 400 naming the path of a NaN, an out-of-range number, a NUL, a lone surrogate, a
    duplicate key or nesting deeper than the limit."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return strict_json.loads(stream.read() if stream is not None else b"")
        except strict_json.StrictJSONError as exc:
            raise exceptions.ParseError(f"JSON parse error - {exc.describe()}") from None
