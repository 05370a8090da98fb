"""Content negotiation that names what it refuses."""

from __future__ import annotations

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation

# Enough of an unknown `?format=` value to recognise it in the message, not a page of it.
SHOWN_CHARACTERS = 40


class FormatNamingNegotiation(DefaultContentNegotiation):
    """A `?format=` that no renderer of the view has is a 406 listing the formats it has.

    DRF answers it with a bare 404, which reads as "no such resource" although the resource
    is there. A suffix (`export.xml`) stays a 404: it names a URL that does not exist.
    """

    def select_renderer(self, request, renderers, format_suffix=None):
        asked = request.query_params.get(self.settings.URL_FORMAT_OVERRIDE)
        if asked and not format_suffix and all(r.format != asked for r in renderers):
            formats = ", ".join(sorted({r.format for r in renderers}))
            shown = asked[:SHOWN_CHARACTERS]
            raise NotAcceptable(f"No format {shown!r} here; this endpoint has: {formats}.")
        return super().select_renderer(request, renderers, format_suffix)
