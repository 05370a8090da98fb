"""A per-process cache of a few large read-only values (a board's reference index, its
references and ratings): insertion-ordered, the oldest entry leaves when it is full."""

from __future__ import annotations

from typing import TypeVar

V = TypeVar("V")


class BoundedCache(dict[str, V]):
    """At most `size` entries; `remember` adds one, dropping the oldest past the size. A dict,
    so a test (or a bench) empties it with `clear()` as a new worker process would start."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def remember(self, key: str, value: V) -> V:
        if key not in self and len(self) >= self.size:
            self.pop(next(iter(self)))
        self[key] = value
        return value
