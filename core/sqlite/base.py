"""Django's SQLite backend, with the transactions of one process taking the write lock in turn.

SQLite arbitrates between connections by polling: a writer that finds the lock taken sleeps and
tries again (after 1, 2, 5 … then every 100 ms) until its timeout runs out. Among the threads of
one web server, whoever tries as the lock frees wins, and the writer that has waited longest
tries least often: with 24 raters on a busy machine one waited past the 20 s timeout while
others went by ("database is locked", issue 42). Here a transaction first waits for its
process's turn, handed to its waiters in the order they came, so the threads of one process
pass one at a time, first come first served, and only the processes (the web server, a worker)
poll for SQLite's own lock. A transaction starts with `BEGIN IMMEDIATE` (settings), so it holds
SQLite's lock for as long as it holds the turn: no waiting is wasted.
"""

from __future__ import annotations

import threading
import time
from collections import deque

from django.db.backends.sqlite3 import base
from django.db.utils import OperationalError


class Turns:
    """A lock handed to its waiters in the order they came (a plain lock wakes any of them, and
    under load one waited past the timeout while later ones went by)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._held = False
        self._waiting: deque[threading.Event] = deque()

    def acquire(self, timeout: float) -> bool:
        with self._mutex:
            if not self._held:
                self._held = True
                return True
            mine = threading.Event()
            self._waiting.append(mine)
        if mine.wait(timeout):
            return True
        with self._mutex:
            if mine.is_set():  # handed over just as the wait ran out: it is ours
                return True
            self._waiting.remove(mine)
            return False

    def release(self) -> None:
        with self._mutex:
            if self._waiting:
                self._waiting.popleft().set()  # handed over: it stays held
            else:
                self._held = False


_turns: dict[str, Turns] = {}
_turns_made = threading.Lock()


def _turn_of(database: str) -> Turns:
    with _turns_made:
        return _turns.setdefault(database, Turns())


class DatabaseWrapper(base.DatabaseWrapper):
    # (django-stubs leaves out the backend's private methods overridden here: type: ignore.)
    _has_turn = False

    def _start_transaction_under_autocommit(self) -> None:
        self._take_turn()
        try:
            super()._start_transaction_under_autocommit()  # type: ignore[misc]
        except BaseException:
            self._give_turn()
            raise

    def _commit(self) -> None:
        try:
            super()._commit()  # type: ignore[misc]
        finally:
            self._give_turn()

    def _rollback(self) -> None:
        try:
            super()._rollback()  # type: ignore[misc]
        finally:
            self._give_turn()

    def _close(self) -> None:
        try:
            super()._close()  # type: ignore[misc]  # an open transaction ends with it
        finally:
            self._give_turn()

    def _take_turn(self) -> None:
        # The same wait as SQLite's own (OPTIONS["timeout"]); running out is SQLite's error,
        # which the site answers with a 503 (core.database_busy).
        timeout = float(self.settings_dict.get("OPTIONS", {}).get("timeout", 5))
        began = time.monotonic()
        if not _turn_of(str(self.settings_dict["NAME"])).acquire(timeout=timeout):
            waited = time.monotonic() - began
            raise OperationalError(f"database is locked (waited {waited:.1f} s for a turn)")
        self._has_turn = True

    def _give_turn(self) -> None:
        if self._has_turn:
            self._has_turn = False
            _turn_of(str(self.settings_dict["NAME"])).release()
