"""Storage that fails on purpose, for tests of what a failed write leaves behind."""

from __future__ import annotations

from itertools import count

DISK_FULL = "disk full"


def disk_full_at(monkeypatch, storage, nth: int) -> None:
    """`storage.save` raises OSError("disk full") at its `nth` call; the other calls save."""
    save, calls = storage.save, count(1)

    def failing(name, content, **kwargs):
        if next(calls) == nth:
            raise OSError(DISK_FULL)
        return save(name, content, **kwargs)

    monkeypatch.setattr(storage, "save", failing)
