"""One file of a human evaluation parsed as the upload does it: read as a table, then by the
reader of its kind (`annotate.judgments.parsing.READERS`)."""

from __future__ import annotations

from annotate.judgments.parsing import READERS, table_read


def parse_contexts(data: bytes, name: str = "contexts"):
    return READERS["contexts"](table_read("contexts", name, data))


def parse_references(data: bytes, name: str = "references"):
    return READERS["references"](table_read("references", name, data))


def parse_outputs(data: bytes, name: str = "systems"):
    return READERS["systems"](table_read("systems", name, data))


def parse_judgments(data: bytes, name: str = "judgments"):
    return READERS["judgments"](table_read("judgments", name, data))
