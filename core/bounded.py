"""Reading untrusted, maybe compressed, input with bounded memory and time.

A decompression bomb is refused while it inflates, not after: every stream is read in chunks
through `BoundedStream`, which counts what comes out and stops at the first limit broken —
inflated bytes (shared by all entries of one archive), the inflated/compressed ratio, and the
bytes since the last newline. Nothing is read whole before its size is known, so memory stays
near one chunk plus one line whatever the input claims or holds.

A refusal is `LimitExceeded`, a ValidationError naming the limit's setting and value: forms,
management commands and the API (a 413, see core/api.py) report it like any bad input.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, NoReturn

from django.conf import settings
from django.core.exceptions import ValidationError

MIB = 1024 * 1024
CHUNK_BYTES = 64 * 1024  # one read: little memory, few Python calls per megabyte
# Ratios are judged only past this much output: a small file of repetitive JSON compresses
# 50:1 and harms nobody, and the first chunks say little about a stream's overall ratio.
RATIO_FLOOR_BYTES = 1 * MIB
GZIP_MAGIC = b"\x1f\x8b"
GZIP_DAMAGE = (gzip.BadGzipFile, zlib.error, EOFError)


@dataclass(frozen=True)
class Limit:
    """One cap, told by the setting that holds it."""

    setting: str
    value: int

    @classmethod
    def from_settings(cls, setting: str) -> Limit:
        return cls(setting, int(getattr(settings, setting)))


class LimitExceeded(ValidationError):
    """Input refused for breaking a limit; `limit` says which (for the API's 413 body)."""

    def __init__(self, limit: Limit, what: str) -> None:
        self.limit = limit
        super().__init__(f"{what} (limit {limit.setting} = {limit.value:,}).", code="limit")


@dataclass(frozen=True)
class Limits:
    """The caps on one input; None leaves that dimension unchecked."""

    inflated: Limit | None = None
    ratio: Limit | None = None
    line: Limit | None = None
    entries: Limit | None = None

    @classmethod
    def for_archives(cls) -> Limits:
        entries = Limit.from_settings("ARCHIVE_MAX_ENTRIES")
        return cls._compressed("ARCHIVE_MAX_INFLATED_BYTES", entries=entries)

    @classmethod
    def for_corpora(cls) -> Limits:
        return cls._compressed("CORPUS_MAX_INFLATED_BYTES")

    @classmethod
    def _compressed(cls, inflated_setting: str, entries: Limit | None = None) -> Limits:
        """A compressed upload's caps: its own inflated size, and the ratio and line length
        every compressed upload shares."""
        return cls(
            inflated=Limit.from_settings(inflated_setting),
            ratio=Limit.from_settings("ARCHIVE_MAX_RATIO"),
            line=Limit.from_settings("UPLOAD_MAX_LINE_BYTES"),
            entries=entries,
        )

    def without_lines(self) -> Limits:
        """For binary members (Parquet), where a "line" means nothing."""
        return Limits(self.inflated, self.ratio, None, self.entries)


class Budget:
    """Inflated bytes allowed for one input, shared by the streams of all its entries."""

    def __init__(self, limit: Limit | None) -> None:
        self.limit = limit
        self.spent = 0

    def spend(self, n: int, label: str) -> None:
        self.spent += n
        if self.limit is not None and self.spent > self.limit.value:
            raise LimitExceeded(self.limit, f"{label} inflates past {self.limit.value:,} bytes")


class CountingReader(io.RawIOBase):
    """Passes reads through and counts the bytes: the compressed side of a ratio."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.raw.read(len(buffer))
        buffer[: len(data)] = data
        self.count += len(data)
        return len(data)


class BoundedStream(io.RawIOBase):
    """The bytes of `inner` (a decompressing reader), refused as soon as they break a limit.

    `compressed` gives the compressed bytes behind the output so far (or the entry's whole
    compressed size): the ratio is output / that. `damage` are the exceptions by which `inner`
    says its data is corrupt; they become a ValidationError rather than a server error.
    """

    def __init__(
        self,
        inner: IO[bytes],
        *,
        label: str,
        limits: Limits,
        budget: Budget | None = None,
        compressed: Callable[[], int] | None = None,
        damage: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.inner, self.label, self.limits = inner, label, limits
        self.budget = budget if budget is not None else Budget(limits.inflated)
        self.compressed, self.damage = compressed, damage
        self.inflated = 0
        self.lines = 0  # newlines seen: the number of the current line is lines + 1
        self._run = 0  # bytes of the current line so far

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        try:
            data = self.inner.read(min(len(buffer), CHUNK_BYTES))
        except self.damage as exc:
            raise ValidationError(f"{self.label} is damaged ({exc}).") from None
        self._check(data)
        buffer[: len(data)] = data
        return len(data)

    def _check(self, data: bytes) -> None:
        self.inflated += len(data)
        self.budget.spend(len(data), self.label)
        if self.limits.line is not None and data:
            self._check_lines(data, self.limits.line)
        self._check_ratio()

    def _check_ratio(self) -> None:
        limit = self.limits.ratio
        if limit is None or self.compressed is None or self.inflated <= RATIO_FLOOR_BYTES:
            return
        if self.inflated > limit.value * max(self.compressed(), 1):
            raise LimitExceeded(limit, f"{self.label} inflates more than {limit.value}:1")

    def _check_lines(self, data: bytes, limit: Limit) -> None:
        first = data.find(b"\n")
        if first == -1:
            self._run += len(data)
            if self._run > limit.value:
                self._refuse_line(limit, self.lines + 1, cr_alone=b"\r" in data)
            return
        if self._run + first > limit.value:
            self._refuse_line(limit, self.lines + 1)
        last = data.rfind(b"\n")
        # Only a chunk longer than the limit can hide a long line between its newlines.
        if len(data) > limit.value and last > first:
            inner = [len(part) for part in data[first + 1 : last].split(b"\n")]
            if max(inner) > limit.value:
                self._refuse_line(
                    limit, self.lines + 2 + next(k for k, n in enumerate(inner) if n > limit.value)
                )
        self.lines += data.count(b"\n")
        self._run = len(data) - last - 1
        if self._run > limit.value:
            self._refuse_line(limit, self.lines + 1)

    def _refuse_line(self, limit: Limit, line: int, cr_alone: bool = False) -> NoReturn:
        what = f"{self.label}: line {line:,} is longer than allowed"
        if cr_alone:  # a long run of bytes without "\n" but with "\r": old Mac line ends
            what += (
                " (its lines seem to end with a carriage return alone, as classic Mac files"
                " do: save it with Unix or Windows line ends)"
            )
        raise LimitExceeded(limit, what)


def buffered(stream: BoundedStream) -> io.BufferedReader:
    return io.BufferedReader(stream, buffer_size=CHUNK_BYTES)


def open_maybe_gzip(raw: IO[bytes], *, label: str, limits: Limits) -> io.BufferedReader:
    """`raw`'s bytes, inflated on the fly when it is gzip (told by its first bytes), bounded.

    `raw` must be seekable (uploads and storage files are): its first bytes are peeked at.
    """
    head = raw.read(2)
    raw.seek(0)
    if head != GZIP_MAGIC:  # a plain file is as large as it looks: only its lines are capped
        return buffered(BoundedStream(raw, label=label, limits=Limits(line=limits.line)))
    counted = CountingReader(raw)
    inner = gzip.GzipFile(fileobj=counted, mode="rb")
    stream = BoundedStream(
        inner,  # type: ignore[arg-type]
        label=label,
        limits=limits,
        compressed=lambda: counted.count,
        damage=GZIP_DAMAGE,
    )
    return buffered(stream)


def lines(reader: io.BufferedReader) -> Iterator[bytes]:
    """The reader's lines, newline kept; only "\\n" ends one. Bounded by the stream's line cap."""
    return iter(reader.readline, b"")


def drain(reader: io.BufferedReader, *, up_to: int) -> int:
    """Read (and check) up to `up_to` bytes of the reader, keeping none; the bytes read."""
    done = 0
    while done < up_to:
        chunk = reader.read(min(CHUNK_BYTES, up_to - done))
        if not chunk:
            break
        done += len(chunk)
    return done
