"""The checks management commands make on their arguments: one line each, before any work."""

import errno
import io
import math
import os

import pytest
from django.core.management.base import CommandError

from core import command_args
from core.command_args import (
    file_to_read,
    file_to_write,
    file_write,
    number_in_range,
    text_file_read,
)


def test_a_file_to_read_must_exist_and_be_a_regular_file(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("x")
    assert file_to_read(good) == good
    with pytest.raises(CommandError, match=r"nope.txt: no such file\.$"):
        file_to_read(tmp_path / "nope.txt")
    with pytest.raises(CommandError, match=r"^--file: .* is a directory, not a file\.$"):
        file_to_read(tmp_path, option="--file")
    with pytest.raises(CommandError, match="no such file"):  # a file is no folder
        file_to_read(good / "inside.txt")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(CommandError, match="is not a regular file"):
        file_to_read(fifo)


def test_a_text_file_must_be_utf8_and_loses_its_byte_order_mark(tmp_path):
    bib = tmp_path / "ref.bib"
    bib.write_bytes(b"\xef\xbb\xbf@article{k, title={\xc3\x9c}}")
    assert text_file_read(bib) == "@article{k, title={Ü}}"
    bib.write_bytes(b"@article{\xff}")
    with pytest.raises(CommandError, match=r"^--citation-file: .* not UTF-8 text \(byte 10"):
        text_file_read(bib, option="--citation-file")


def test_a_file_to_write_needs_an_existing_writable_folder_and_no_directory(tmp_path):
    assert file_to_write(tmp_path / "out.jsonl", option="--out") == tmp_path / "out.jsonl"
    with pytest.raises(CommandError, match=r"^--out: .* is a directory; name a file in it\.$"):
        file_to_write(tmp_path, option="--out")
    with pytest.raises(CommandError, match=r"^--out: no folder .*nodir to write x.jsonl in\.$"):
        file_to_write(tmp_path / "nodir" / "x.jsonl", option="--out")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(CommandError, match="not a regular file"):
        file_to_write(fifo, option="--out")


class FullDisk(io.StringIO):
    """A file whose writes fail as on a full disk."""

    def write(self, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failed_write_keeps_the_old_file_and_leaves_no_partial_one(tmp_path, monkeypatch):
    out = tmp_path / "out.jsonl"
    file_write(out, ["a\n", "b\n"], option="--out")
    assert out.read_bytes() == b"a\nb\n"

    def full_disk(descriptor, *args, **kwargs):
        os.close(descriptor)
        return FullDisk()

    monkeypatch.setattr(command_args, "open", full_disk, raising=False)
    with pytest.raises(CommandError) as refused:
        file_write(out, ["c\n"], option="--out")
    assert str(refused.value) == (
        f"--out: cannot write {out}: No space left on device; nothing was written."
    )
    assert out.read_bytes() == b"a\nb\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


@pytest.mark.parametrize("value", [0, -1, 10_001, 10**23, math.nan, -math.inf])
def test_a_number_out_of_its_range_is_refused(value):
    with pytest.raises(CommandError, match=r"^--limit must be 1 … 10,000; .* is not\.$"):
        number_in_range(value, option="--limit", low=1, high=10_000)


def test_a_number_in_its_range_is_kept():
    assert number_in_range(1, option="--limit", low=1, high=10) == 1
    assert number_in_range(2.5, option="--timeout", low=1, high=10) == 2.5
