"""One file of a human evaluation parsed as the upload does it: read as a table, then by the
reader of its kind (`annotate.judgments.parsing.READERS`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from annotate.judgments.parsing import READERS, table_read


def _parser(kind: str) -> Callable[..., Any]:
    def parse(data: bytes, name: str = kind) -> Any:
        return READERS[kind](table_read(kind, name, data))

    return parse


parse_contexts = _parser("contexts")
parse_references = _parser("references")
parse_outputs = _parser("systems")
parse_judgments = _parser("judgments")
