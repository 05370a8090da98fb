"""SQLite's write lock taken in turn by the threads of one process (core.sqlite).

On a SQLite file of the test's own, whatever database the suite runs on (CI's is PostgreSQL),
with the embedded default's settings: the backend, WAL, IMMEDIATE transactions.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections, transaction

from core.database_busy import is_database_busy
from core.sqlite.base import _turn_of

ALIAS = "sqlite-turns"
HELD_SECONDS = 0.6


@pytest.fixture(autouse=True)
def turns_database(tmp_path, django_db_blocker):
    """A database alias on a SQLite file with `make run`'s settings, for this test alone."""
    embedded = {
        "ENGINE": "core.sqlite",
        "NAME": str(tmp_path / "turns.sqlite3"),
        "OPTIONS": {
            "init_command": "PRAGMA journal_mode=WAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        },
    }
    default = connections.settings[DEFAULT_DB_ALIAS]
    configured = connections.configure_settings({DEFAULT_DB_ALIAS: default, ALIAS: embedded})
    connections.settings[ALIAS] = configured[ALIAS]
    with django_db_blocker.unblock():
        yield connections.settings[ALIAS]
        connections[ALIAS].close()
    del connections[ALIAS]
    del connections.settings[ALIAS]


def in_thread(body) -> tuple[list[BaseException | float], threading.Thread]:
    """Run `body` in a thread of its own (its own connection); its result or exception."""
    outcome: list[BaseException | float] = []

    def run():
        try:
            outcome.append(body())
        except BaseException as exc:  # reported to the test
            outcome.append(exc)
        finally:
            connections[ALIAS].close()

    thread = threading.Thread(target=run)
    thread.start()
    return outcome, thread


def a_transaction_seconds() -> float:
    began = time.monotonic()
    with transaction.atomic(using=ALIAS):
        pass
    return time.monotonic() - began


def test_a_transaction_waits_for_the_turn_then_runs(turns_database):
    turn = _turn_of(turns_database["NAME"])
    with transaction.atomic(using=ALIAS):
        assert turn._held  # taken by the backend, not only SQLite's own lock
        outcome, thread = in_thread(a_transaction_seconds)
        time.sleep(HELD_SECONDS)
    thread.join()
    assert not turn._held
    [waited] = outcome
    assert isinstance(waited, float) and waited >= HELD_SECONDS * 0.8


def test_a_wait_for_the_turn_that_runs_out_is_sqlites_busy_error(monkeypatch, turns_database):
    monkeypatch.setitem(turns_database["OPTIONS"], "timeout", 0.1)
    with transaction.atomic(using=ALIAS):
        outcome, thread = in_thread(a_transaction_seconds)
        thread.join()
    [error] = outcome
    assert isinstance(error, OperationalError) and is_database_busy(error)  # a 503, not a 500


def test_the_turn_is_given_back_when_a_transaction_fails():
    with pytest.raises(ValueError), transaction.atomic(using=ALIAS):
        raise ValueError("the transaction fails")
    outcome, thread = in_thread(a_transaction_seconds)
    thread.join()
    assert isinstance(outcome[0], float) and outcome[0] < HELD_SECONDS
