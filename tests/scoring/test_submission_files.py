import pytest

from scoring.leaderboards.submission_files import UploadRejected, parse_submission

IDS = ["a", "b", "c"]


def problems(data: bytes, fmt=""):
    with pytest.raises(UploadRejected) as info:
        parse_submission(data.splitlines(keepends=True), IDS, fmt)
    return [str(p) for p in info.value.problems]


def test_plain_text_one_line_per_item():
    assert parse_submission([b"x\n", b"\n", b"z\n"], IDS) == (["x", "", "z"], "text")


def test_a_byte_order_mark_is_tolerated():
    assert parse_submission([b"\xef\xbb\xbfx\n", b"y\n", b"z\n"], IDS)[0][0] == "x"


def test_wrong_line_count_nul_and_bad_utf8_are_all_reported():
    assert problems(b"x\nbad \xff\nnul \x00 here\nextra\n") == [
        "line 2: not valid UTF-8 (byte 5 of the line)",
        "line 3: contains a NUL byte (byte 5 of the line)",
        "the file has 4 lines; the leaderboard has 3 items",
    ]


def test_jsonl_matched_by_id_in_any_order():
    data = b'{"id": "c", "hyp": "z"}\n{"id": "a", "hyp": "x"}\n{"id": "b", "hyp": "y"}\n'
    assert parse_submission(data.splitlines(keepends=True), IDS) == (["x", "y", "z"], "jsonl")


def test_jsonl_problems_name_lines():
    data = b'{"id": "a", "hyp": "x"}\n{"id": "a", "hyp": "again"}\n{"id": "zz", "hyp": "q"}\nnope\n'
    assert problems(data, "jsonl") == [
        "line 2: item 'a' already given on line 1",
        "line 3: unknown item id 'zz'",
        "line 4: not valid JSON (Expecting value at column 1)",
        "2 items have no hypothesis: 'b', 'c'",
    ]


@pytest.mark.parametrize(
    "line, layout", [(b'{"hyp": 1}\n', "jsonl"), (b"bad \xff\n", "text")], ids=["json", "utf8"]
)
def test_reading_stops_after_a_thousand_wrong_lines(line, layout):
    found = problems(line * 5_000, layout)
    assert found[-2:] == [
        "line 1001: reading stopped here: 1,000 lines were wrong already",
        "900 more problems not shown",
    ]
    assert not any("items" in p for p in found)  # no count or missing items: they would be wrong


def test_an_empty_file_is_refused():
    assert "the file is empty" in problems(b"")


@pytest.mark.parametrize(
    "data, fmt",
    [
        (b"\xef\xbb\xbfx\r\n\n y \n", "text"),
        (
            b'{"id": "c", "hyp": " z"}\n\n{"id": "a", "hyp": "x"}\n{"id": "b", "hyp": "y "}\n',
            "jsonl",
        ),
    ],
)
def test_a_slice_of_the_file_equals_the_same_items_of_the_whole(data, fmt):
    from scoring.leaderboards.submission_files import submission_slice

    lines = data.splitlines(keepends=True)
    whole, layout = parse_submission(lines, IDS, fmt)
    assert layout == fmt
    for start, stop in [(0, 3), (0, 1), (1, 3), (2, 3), (1, 1)]:
        assert submission_slice(iter(lines), IDS, start, stop, fmt) == whole[start:stop]


def test_a_text_slice_stops_reading_at_its_last_line():
    from scoring.leaderboards.submission_files import submission_slice

    def lines():
        yield b"x\n"
        yield b"y\n"
        raise AssertionError("read past the slice")

    assert submission_slice(lines(), IDS, 1, 2, "text") == ["y"]
    with pytest.raises(UploadRejected, match="fewer than 3 lines"):
        submission_slice([b"x\n"], IDS, 0, 3, "text")
