"""core.safezip: a zip's directory is checked before anything inflates; names stay under root."""

import io
import time
import tracemalloc
import zipfile

import pytest
from django.core.exceptions import ValidationError

from core.bounded import Limit, LimitExceeded, Limits
from core.paths import safe_relative, storage_join
from core.safezip import SafeZip
from tests.bombs import GIB, MIB, zip_bomb, zip_many_entries, zip_of

LIMITS = Limits(
    inflated=Limit("ARCHIVE_MAX_INFLATED_BYTES", 10 * MIB),
    ratio=Limit("ARCHIVE_MAX_RATIO", 100),
    line=Limit("UPLOAD_MAX_LINE_BYTES", 1000),
    entries=Limit("ARCHIVE_MAX_ENTRIES", 50),
)


def opened(data: bytes, limits: Limits = LIMITS) -> SafeZip:
    return SafeZip(io.BytesIO(data), label="The archive", limits=limits)


def read(archive: SafeZip, name: str, **kwargs) -> bytes:
    [info] = [i for i in archive.files if i.filename == name]
    with archive.open(info, **kwargs) as reader:
        return reader.read()


def test_a_good_archive_reads_back():
    with opened(zip_of({"r/a.txt": b"one\ntwo\n", "r/b.bin": b"\0" * 5000})) as archive:
        assert [i.filename for i in archive.files] == ["r/a.txt", "r/b.bin"]
        assert read(archive, "r/a.txt") == b"one\ntwo\n"
        assert read(archive, "r/b.bin", binary=True) == b"\0" * 5000


@pytest.mark.parametrize(
    "name",
    ["../x", "r/../../x", "/etc/passwd", "C:/x", "c:x", "r\\..\\x", "r//x", "./x", "r/\x01"],
)
def test_names_that_could_leave_the_root_are_refused(name):
    with pytest.raises(ValidationError, match="is refused"):
        opened(zip_of({name: b"x"}))


def test_symlink_entries_are_refused():
    with pytest.raises(ValidationError, match="symlink or special file"):
        opened(zip_of({"r/a": b"x"}, symlinks={"r/link": "/etc/passwd"}))


def test_a_name_given_twice_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, pytest.warns(UserWarning, match="Duplicate"):
        archive.writestr("r/a", b"1")
        archive.writestr("r/a", b"2")  # which one would be checked, which one used?
    with pytest.raises(ValidationError, match="twice"):
        opened(buffer.getvalue())


def test_bzip2_entries_are_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("r/a", b"x")
    with pytest.raises(ValidationError, match="unsupported method"):
        opened(buffer.getvalue())


def test_a_gigabyte_zip_bomb_is_refused_from_its_directory_with_default_limits(settings):
    bomb = zip_bomb(GIB, entries=5)  # 5 GiB declared, 5 MB on disk
    tracemalloc.start()
    started = time.perf_counter()
    with pytest.raises(LimitExceeded) as caught:
        opened(bomb, Limits.for_archives())
    seconds, peak = time.perf_counter() - started, tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert caught.value.limit == Limit("ARCHIVE_MAX_RATIO", 100) and seconds < 0.5
    assert peak < 8 * MIB
    settings.ARCHIVE_MAX_RATIO = 10_000  # then its total gives it away
    with pytest.raises(LimitExceeded, match=r"declares 5,368,709,120 bytes.*MAX_INFLATED"):
        opened(bomb, Limits.for_archives())


def test_a_hundred_thousand_entries_are_refused_before_the_directory_is_parsed(settings):
    data = zip_many_entries(100_000)
    tracemalloc.start()
    with pytest.raises(LimitExceeded, match=r"has 100,000 entries.*ARCHIVE_MAX_ENTRIES = 1,000"):
        opened(data, Limits.for_archives())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2 * MIB  # zipfile would have built 100,000 ZipInfo objects


def test_the_streaming_checks_apply_inside_entries():
    with opened(zip_of({"r/a": b"x" * 2000 + b"\n"})) as archive:
        with pytest.raises(LimitExceeded, match="line 1"):
            read(archive, "r/a")
        assert read(archive, "r/a", binary=True)  # no lines in a binary member


@pytest.mark.parametrize("cut", [0.5, 0.9, 0.99])
def test_truncated_or_garbled_archives_are_bad_input(cut):
    data = zip_of({"r/a": b"hello world\n" * 1000, "r/b": b"more\n" * 500})
    with pytest.raises(ValidationError), opened(data[: int(len(data) * cut)]) as archive:
        for info in archive.files:
            read(archive, info.filename)


def test_damaged_compressed_data_is_bad_input():
    data = bytearray(zip_of({"r/a": b"hello world\n" * 1000}))
    data[40:60] = b"\xff" * 20  # inside the deflate stream
    with opened(bytes(data)) as archive, pytest.raises(ValidationError, match="damaged"):
        read(archive, "r/a")


def test_a_damaged_directory_is_bad_input():
    data = bytearray(zip_of({"r/a": b"hello\n"}))
    directory = data.rfind(b"PK\x01\x02")
    data[directory : directory + 4] = b"XXXX"
    with pytest.raises(ValidationError, match="not a readable zip archive"):
        opened(bytes(data))


def test_random_bytes_are_not_an_archive():
    with pytest.raises(ValidationError, match="not a zip archive"):
        opened(b"PK\x03\x04" + b"\x00" * 100)


@pytest.mark.parametrize("name", ["a", "a/b.txt", "1.2.0-rc.1", "chat-1.0.0.zip"])
def test_plain_relative_names_pass(name):
    assert safe_relative(name) == name
    assert storage_join("releases/7", name) == f"releases/7/{name}"
