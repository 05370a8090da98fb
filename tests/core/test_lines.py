"""The one line reader and problem type: numbering, BOM, bad bytes, and how a problem reads."""

import io

from core.lines import LineProblem, LineProblems, read_lines


def read(data: bytes, **options):
    problems = LineProblems(file="f.tsv")
    return list(read_lines(data.splitlines(keepends=True), problems, **options)), problems


def test_lines_are_numbered_from_one_without_their_ends_or_a_byte_order_mark():
    lines, problems = read(b"\xef\xbb\xbfa\r\nb\n\nc")
    assert lines == [(1, "a"), (2, "b"), (3, ""), (4, "c")] and not problems.problems


def read_file(data: bytes) -> list[tuple[int, str]]:
    """Lines as an upload gives them: ended at "\n" only."""
    return list(read_lines(io.BytesIO(data), LineProblems()))


def test_a_file_whose_lines_end_with_a_carriage_return_alone_is_read_at_them():
    assert read_file(b"\xef\xbb\xbfa\rb\r\rc\r") == [(1, "a"), (2, "b"), (3, ""), (4, "c")]
    assert read_file(b"a\rb") == [(1, "a"), (2, "b")]
    # In a file of "\n" lines, a stray "\r" is part of its line, whichever line it is in.
    assert read_file(b"a\rb\nc\rd\n") == [(1, "a\rb"), (2, "c\rd")]
    assert read_file(b"one\r") == [(1, "one")]
    assert read_file(b"") == []


def test_bad_lines_are_reported_and_skipped_or_kept_empty():
    data = b"ok\nbad \xff\nnul \x00\n"
    skipped, problems = read(data)
    assert skipped == [(1, "ok")]
    assert [str(p) for p in problems.problems] == [
        "f.tsv, line 2: not valid UTF-8 (byte 5 of the line)",
        "f.tsv, line 3: contains a NUL byte (byte 5 of the line)",
    ]
    assert problems.bad_lines == 2
    kept, _ = read(data, keep_bad=True)
    assert kept == [(1, "ok"), (2, ""), (3, "")]


def test_latin1_reads_a_line_that_is_not_utf8_with_a_warning():
    lines, problems = read("café\n".encode("latin-1"), latin1=True)
    assert lines == [(1, "café")]
    assert [(p.level, p.message) for p in problems.problems] == [
        ("warning", "not UTF-8 (byte 4 of the line): read as Latin-1")
    ]
    assert problems.bad_lines == 0


def test_a_problem_names_its_file_line_and_field_when_it_has_them():
    assert str(LineProblem(3, "must be a string", "id")) == "line 3, id: must be a string"
    assert str(LineProblem(0, "the file is empty")) == "the file is empty"
    assert str(LineProblem(2, "bad", file="refs.tsv")) == "refs.tsv, line 2: bad"
    assert LineProblem(2, "bad", "id").as_dict("line", "message") == {"line": 2, "message": "bad"}


def test_past_the_limit_problems_are_counted_and_summarised():
    problems = LineProblems(limit=2)
    for line in (1, 1, 2, 3):
        problems.error(line, "wrong")
    assert problems.bad_lines == 3 and problems.more == 2
    assert [str(p) for p in problems.reported()][-1] == "2 more problems not shown"


def test_like_problems_are_counted_and_the_first_says_what_when_they_differ():
    from core.lines import problems_counted

    problems = [
        LineProblem(2, "not valid JSON (a: NaN is not a JSON number)", file="j", kind="bad JSON"),
        LineProblem(5, "not valid JSON (b: expected a value)", file="j", kind="bad JSON"),
        LineProblem(6, "not valid JSON (c)", file="j", kind="bad JSON", level="warning"),
    ]
    first, warning = problems_counted(problems)
    assert first.count == 2 and warning.count == 1
    assert (
        first.message
        == "2 bad JSON: lines 2, 5; line 2: not valid JSON (a: NaN is not a JSON number)"
    )
    assert warning.message == "not valid JSON (c)" and warning.level == "warning"
