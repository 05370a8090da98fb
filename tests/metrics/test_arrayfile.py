"""The array file written piece by piece equals the one written at once."""

from __future__ import annotations

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
