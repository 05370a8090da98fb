"""Cells of several values (`annotate.judgments.cells`): each separator detected on hand-made
cells, the choice explained, ties settled the same way every time, given separators, limits;
and the column guess that never takes words for scores."""

import pytest

from annotate.judgments.cells import (
    MAX_VALUES,
    NONE,
    SeparatorError,
    TooManyValues,
    cell_split,
    separator_detect,
    separator_named,
    separators_parse,
)
from annotate.judgments.columns import LAYOUTS, guess_columns


@pytest.mark.parametrize(
    ("cells", "separator", "first"),
    [
        (["a\tb", "c\td\te", "f"], "tab", ["a", "b"]),
        (["a|||b", "c ||| d", "e"], "|||", ["a", "b"]),
        (["a||||b", "c||||d||||e"], "||||", ["a", "b"]),
        (["hi EOS there", "a EOS b EOS c"], "eos", ["hi", "there"]),
        (["hi __eou__ there __eou__", "a__eou__b"], "eou", ["hi", "there"]),
        (["one\ntwo", "three\r\nfour"], "newline", ["one", "two"]),
        (['["a", "b"]', '["c"]', "[]"], "json", ["a", "b"]),
        (["just one", "another"], NONE, ["just one"]),
    ],
)
def test_each_separator_is_detected_and_splits(cells, separator, first):
    found = separator_detect(cells, "refs", "references")
    assert found.separator == separator and not found.given
    assert cell_split(cells[0], found.separator) == first
    assert found.explain().startswith("refs (references): ")


def test_the_choice_says_why():
    found = separator_detect(["a\tb", "c\td", "e"], "refs", "references")
    assert found.explain() == "refs (references): split at a tab, found in 2 of 3 cells (detected)"
    nothing = separator_detect(["a", "b"], "ctx", "context")
    assert "one value a cell" in nothing.explain()


def test_the_separator_in_the_most_cells_wins_and_ties_go_the_same_way_every_time():
    # Turns joined with `||||` whose text holds a stray tab now and then.
    cells = ["a||||b", "c\tx||||d", "e||||f"]
    assert separator_detect(cells, "c", "context").separator == "||||"
    tie = ["a|||b", "c\td"]
    assert {separator_detect(tie, "c", "context").separator for _ in range(5)} == {"|||"}
    assert separator_detect(list(reversed(tie)), "c", "context").separator == "|||"


def test_the_first_thousand_cells_decide():
    cells = ["a\tb"] * 1000 + ["c|||d"] * 5000
    found = separator_detect(cells, "refs", "references")
    assert (found.separator, found.found_in, found.cells) == ("tab", 1000, 1000)
    assert "found in 1000 of the first 1000 cells" in found.explain()


def test_a_separator_in_few_cells_is_text_not_a_separator():
    cells = ["a reply", "another"] * 10 + ["a reply\nover two lines"]
    assert separator_detect(cells, "refs", "references").separator == NONE


def test_pipes_are_matched_as_whole_runs():
    assert cell_split("a||||b", "|||") == ["a||||b"]
    assert cell_split("a|||b||||c", "||||") == ["a|||b", "c"]


def test_a_given_separator_is_used_as_given():
    assert separators_parse([("references", "tab"), ("context", "||||")]) == {
        "references": "tab",
        "context": "||||",
    }
    assert separator_named("\\t") == separator_named("tab") == "tab"
    assert separator_named(" EOS ") == "eos" and separator_named("JSON") == "json"
    with pytest.raises(SeparatorError, match="Unknown separator ';'"):
        separator_named(";")
    with pytest.raises(SeparatorError, match="'system' holds one value a cell"):
        separators_parse([("system", "tab")])


def test_a_cell_of_too_many_values_is_refused_before_it_is_split():
    with pytest.raises(TooManyValues, match=f"more than {MAX_VALUES} values"):
        cell_split("|||".join(["x"] * 10_000), "|||")
    with pytest.raises(TooManyValues):
        cell_split(str(list(range(MAX_VALUES + 1))), "json")
    assert len(cell_split("\t".join(["x"] * MAX_VALUES), "tab")) == MAX_VALUES


def test_empty_values_are_left_out_and_a_json_list_from_jsonl_is_kept():
    assert cell_split("a\t\t b \t", "tab") == ["a", "b"]
    assert cell_split(["a", " b ", None], "tab") == ["a", "b"]
    assert cell_split(None, "tab") == [] and cell_split("[not json", "json") == ["[not json"]


def test_columns_of_words_are_never_guessed_as_criteria():
    header = ["system", "item_id", "mean_rating", "response", "refs", "context", "comment"]
    rows = [["a", "c1", "4.5", "hello there", "x\ty", "hi||||yo", "fine"]] * 3
    guess = guess_columns("judgments", header, rows)
    assert guess.roles == [
        "system", "item", "criterion", "response", "references", "context", "ignore",
    ]  # fmt: skip
    assert guess.sure and guess.text_columns == [6]


def test_the_judgments_roles_list_criterion_once():
    roles = LAYOUTS["judgments"].roles
    assert roles.count("criterion") == 1 and len(roles) == len(set(roles))
    assert {"original", "message", "n_judges", "response", "references"} <= set(roles)
