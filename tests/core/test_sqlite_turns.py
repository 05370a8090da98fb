"""SQLite's write lock taken in turn by the threads of one process (core.sqlite).

On SQLite only (the default of `make test`): elsewhere there is nothing to test.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import OperationalError, connection, transaction

from core.database_busy import is_database_busy

pytestmark = pytest.mark.django_db(transaction=True)

HELD_SECONDS = 0.6


@pytest.fixture(autouse=True)
def _sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("the turns are SQLite's")


def in_thread(body) -> tuple[list[BaseException | float], threading.Thread]:
    """Run `body` in a thread of its own (its own connection); its result or exception."""
    outcome: list[BaseException | float] = []

    def run():
        try:
            outcome.append(body())
        except BaseException as exc:  # reported to the test
            outcome.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return outcome, thread


def a_transaction_seconds() -> float:
    began = time.monotonic()
    with transaction.atomic():
        pass
    return time.monotonic() - began


def test_a_transaction_waits_for_the_turn_then_runs():
    with transaction.atomic():
        outcome, thread = in_thread(a_transaction_seconds)
        time.sleep(HELD_SECONDS)
    thread.join()
    [waited] = outcome
    assert isinstance(waited, float) and waited >= HELD_SECONDS * 0.8


def test_a_wait_for_the_turn_that_runs_out_is_sqlites_busy_error(monkeypatch):
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "timeout", 0.1)
    with transaction.atomic():
        outcome, thread = in_thread(a_transaction_seconds)
        thread.join()
    [error] = outcome
    assert isinstance(error, OperationalError) and is_database_busy(error)  # a 503, not a 500


def test_the_turn_is_given_back_when_a_transaction_fails():
    with pytest.raises(ValueError), transaction.atomic():
        raise ValueError("the transaction fails")
    outcome, thread = in_thread(a_transaction_seconds)
    thread.join()
    assert isinstance(outcome[0], float) and outcome[0] < HELD_SECONDS
