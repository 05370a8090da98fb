"""core.filesets: a set of files is all written and checked, or nothing of it is left."""

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage

from core.filesets import fileset_staged, fileset_write
from tests.storage_kit import DISK_FULL, disk_full_at

FILES = {"a.json": b"{}\n", "b.txt": b"bee\n", "c.bin": b"\0\1\2"}


@pytest.fixture
def storage(tmp_path):
    return FileSystemStorage(location=tmp_path)


def stored(storage, prefix="set"):
    try:
        return sorted(storage.listdir(prefix)[1])
    except FileNotFoundError:
        return []


def test_a_set_is_written_and_read_back(storage):
    written = fileset_write(prefix="set/1", files=FILES, storage=storage)
    assert written == ["set/1/a.json", "set/1/b.txt", "set/1/c.bin"]
    assert storage.open("set/1/b.txt").read() == b"bee\n"


def test_a_failure_while_writing_leaves_nothing(storage, monkeypatch):
    disk_full_at(monkeypatch, storage, 3)
    with pytest.raises(OSError, match=DISK_FULL):
        fileset_write(prefix="set", files=FILES, storage=storage)
    assert stored(storage) == []


def test_a_file_that_does_not_read_back_as_written_fails_the_set(storage, monkeypatch):
    monkeypatch.setattr("core.filesets._digest", lambda storage, name: "0" * 64)
    with pytest.raises(OSError, match="does not read back"):
        fileset_write(prefix="set", files=FILES, storage=storage)
    assert stored(storage) == []


def test_a_failing_block_deletes_the_set_it_staged(storage):
    with pytest.raises(RuntimeError), fileset_staged(prefix="set", files=FILES, storage=storage):
        assert stored(storage) == sorted(FILES)
        raise RuntimeError("the database said no")
    assert stored(storage) == []


def test_leftovers_of_an_unpublished_attempt_are_replaced_not_renamed(storage):
    storage.save("set/a.json", ContentFile(b"half"))
    assert fileset_write(prefix="set", files=FILES, storage=storage)[0] == "set/a.json"
    assert storage.open("set/a.json").read() == b"{}\n" and stored(storage) == sorted(FILES)


@pytest.mark.parametrize("name", ["../x", "/abs", "a/../../b"])
def test_names_must_stay_under_the_prefix(storage, name):
    with pytest.raises(ValidationError):
        fileset_write(prefix="set", files={name: b"x"}, storage=storage)
