"""The one CSV/TSV writer: formula triggers neutralised (OWASP), numbers kept, reversible."""

import csv
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.tabular import csv_text, neutralise, restore, tsv_bytes, tsv_cell


@pytest.mark.parametrize(
    "value, cell",
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1+cmd", "'+1+cmd"),
        ("-cmd|' /C calc'!A0", "'-cmd|' /C calc'!A0"),
        ("@SUM(1)", "'@SUM(1)"),
        ("\tfoo", "'\tfoo"),
        ("\rfoo", "'\rfoo"),
        ("'=already", "''=already"),
        ("plain text", "plain text"),
        ("'quoted", "'quoted"),
        ("-0.5", "-0.5"),
        ("+1", "+1"),
        ("1e-3", "1e-3"),
        (-0.5, -0.5),
        (3, 3),
        (True, "true"),
        (None, ""),
        ("", ""),
    ],
)
def test_cells(value, cell):
    assert neutralise(value) == cell


@given(st.text())
def test_restore_undoes_neutralise_for_every_text(text):
    assert restore(str(neutralise(text))) == text


def test_a_csv_document_reads_back_as_text_a_spreadsheet_will_not_run():
    text = csv_text(["who", "weight"], [["=1+1", -0.25], ["ok", 1.0]])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows == [["who", "weight"], ["'=1+1", "-0.25"], ["ok", "1.0"]]


def test_tsv_keeps_rows_whole_and_floats_exact():
    assert tsv_cell("a\tb\nc") == "a b c"
    assert tsv_cell("\t=x") == "' =x" or tsv_cell("\t=x") == " =x"
    assert tsv_cell(0.1 + 0.2) == "0.30000000000000004"
    assert tsv_bytes(("a", "b"), [("@x", -1.5)]) == b"a\tb\n'@x\t-1.5\n"
