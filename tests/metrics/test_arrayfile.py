"""The array file written piece by piece equals the one written at once."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from scoring.metrics.arrayfile import ArrayWriter, read_arrays, write_arrays

ARRAYS = {
    "ints": np.arange(100, dtype=np.int64) * 7,
    "empty": np.zeros(0),
    "bytes": np.frombuffer("über 中文".encode(), dtype=np.uint8),
    "small": np.array([3, -1, 2], dtype=np.int32),
}


@pytest.mark.parametrize("piece", [1, 3, 64, 1000])
def test_pieces_in_any_order_give_the_file_of_write_arrays(tmp_path, piece):
    write_arrays(tmp_path / "once", ARRAYS, {"meta": [1, "x"]})
    with ArrayWriter(tmp_path / "pieces", [(k, v.dtype) for k, v in ARRAYS.items()]) as out:
        for a in range(0, 100, piece):
            for name in reversed(ARRAYS):  # interleaved, against the file order
                out.append(name, ARRAYS[name][a : a + piece])
        out.finish({"meta": [1, "x"]})
    assert (tmp_path / "once").read_bytes() == (tmp_path / "pieces").read_bytes()
    arrays, meta = read_arrays(tmp_path / "pieces")
    assert meta == {"meta": [1, "x"]} and np.array_equal(arrays["ints"], ARRAYS["ints"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["once", "pieces"]


def test_a_piece_of_another_dtype_is_refused_and_nothing_is_left_behind(tmp_path):
    with (
        pytest.raises(TypeError, match="ints"),
        ArrayWriter(tmp_path / "x", [("ints", np.int64)]) as out,
    ):
        out.append("ints", np.arange(3, dtype=np.int32))
    assert list(tmp_path.iterdir()) == []


def test_object_arrays_are_refused(tmp_path):
    with pytest.raises(TypeError, match="not numeric"):
        ArrayWriter(tmp_path / "x", [("o", object)])
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def umask():
    """Set the process's umask for a test, and put the old one back."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002], ids=oct)
def test_a_written_file_gets_the_mode_of_any_new_file(tmp_path, umask, mask):
    # it was mkstemp's 0600 whatever the umask: another account (a worker) could not read it
    umask(mask)
    write_arrays(tmp_path / "new", ARRAYS, None)
    (tmp_path / "old").write_bytes(b"x")
    os.chmod(tmp_path / "old", 0o600)
    with ArrayWriter(tmp_path / "old", [("small", np.int32)]) as out:  # replaces a file
        out.append("small", ARRAYS["small"])
        out.finish(None)
    for name in ("new", "old"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o666 & ~mask


def _special_files(tmp_path):
    target = tmp_path / "target.idx"
    target.write_bytes(b"original")
    link = tmp_path / "link.idx"
    link.symlink_to(target.name)
    fifo = tmp_path / "fifo.idx"
    os.mkfifo(fifo)
    return {"symbolic link": link, "FIFO": fifo, "dangling": _dangling(tmp_path)}


def _dangling(tmp_path):
    link = tmp_path / "dangling.idx"
    link.symlink_to("nowhere.idx")
    return link


@pytest.mark.parametrize("kind", ["symbolic link", "FIFO", "dangling"])
def test_a_target_that_is_not_a_regular_file_is_refused_and_left_as_it_was(tmp_path, kind):
    path = _special_files(tmp_path)[kind]
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(FileExistsError, match="not a regular file|symbolic link"):
        write_arrays(path, ARRAYS, None)
    with pytest.raises(FileExistsError, match="not a regular file|symbolic link"):
        ArrayWriter(path, [("small", np.int32)])  # refused before any piece is spooled
    assert path.is_symlink() if kind != "FIFO" else stat.S_ISFIFO(os.lstat(path).st_mode)
    assert (tmp_path / "target.idx").read_bytes() == b"original"
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no temporary file left
