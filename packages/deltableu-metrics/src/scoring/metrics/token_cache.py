"""A least-recently-used cache of tokenized lines, bounded by the tokens it holds."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable


class TokenCache:
    """Recently tokenized line lists (and single lines of :func:`make_tokenizer`), least
    recently used dropped past `limit` tokens in all.

    The same outputs are scored by several metrics (and in a correlation study against several
    reference sets), and tokenizing is most of their cost. Entries are shared: callers must not
    change the token lists they get."""

    def __init__(self, limit: int):
        self.limit = limit
        self.entries: OrderedDict[tuple[object, ...], tuple[list[str], str]] = OrderedDict()
        self.tokens = 0
        self.lock = threading.Lock()

    def get(
        self, key: tuple[object, ...], compute: Callable[[], tuple[list[str], str]]
    ) -> tuple[list[str], str]:
        with self.lock:
            if key in self.entries:
                self.entries.move_to_end(key)
                return self.entries[key]
        value = compute()
        if len(value[0]) > self.limit:
            return value
        with self.lock:
            if key not in self.entries:
                self.entries[key] = value
                self.tokens += _charge(value[0])
            while self.tokens > self.limit:
                _, (dropped, _) = self.entries.popitem(last=False)
                self.tokens -= _charge(dropped)
        return value

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.tokens = 0


def _charge(tokens: list[str]) -> int:
    # An empty line costs one: a flood of blank strings must not fill the cache for free.
    return max(len(tokens), 1)
