"""Strict JSON: what Python's json accepts and we refuse, each named by its path."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.strict_json import MAX_DEPTH, StrictJSONError, loads

REFUSED = [
    ('{"a": NaN}', "a: NaN is not a JSON number"),
    ('{"a": [1, Infinity]}', "a[1]: Infinity is not a JSON number"),
    ('{"a": -Infinity}', "a: -Infinity is not a JSON number"),
    ('{"w": 1e999}', "w: the number 1e999 is out of range"),
    ('{"refs": [{"text": "a\\u0000b"}]}', "refs[0].text: a NUL character is not allowed"),
    ('{"t": "\\ud800"}', "t: a lone surrogate"),
    ('{"a\\u0000": 1}', "(top level): key: a NUL character is not allowed"),
    ('{"id": 1, "id": 2}', "(top level): the key 'id' appears twice"),
    ("[" * 100_000 + "]" * 100_000, "nested deeper than 32 levels"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested deeper than 32 levels"),
    ("1" * 5000, "Exceeds the limit"),
    ('{"a": }', "Expecting value at column 7"),
    (b'{"a": "\xff"}', "not valid UTF-8 (byte 8)"),
]


@pytest.mark.parametrize("text, message", REFUSED)
def test_refused_with_the_path_of_the_value(text, message):
    with pytest.raises(StrictJSONError) as refused:
        loads(text)
    assert message in refused.value.describe()
    assert isinstance(refused.value, json.JSONDecodeError)  # readers catching that still work


def test_nesting_up_to_the_limit_is_fine():
    depth = MAX_DEPTH
    assert loads("[" * depth + "]" * depth) is not None


TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_what_json_allows_parses_as_pythons_json_does(value):
    text = json.dumps(value)
    assert loads(text) == json.loads(text)
    assert type(loads(text)) is type(json.loads(text))
