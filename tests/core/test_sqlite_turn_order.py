"""The turn of core.sqlite goes to its waiters in the order they came, and a wait can run out."""

from __future__ import annotations

import threading
import time

from core.sqlite.base import Turns


def test_waiters_get_the_turn_in_the_order_they_came():
    turns, order = Turns(), []
    assert turns.acquire(timeout=1)

    def wait(name: str) -> None:
        assert turns.acquire(timeout=10)
        order.append(name)
        turns.release()

    threads = []
    for name in "abcde":
        threads.append(threading.Thread(target=wait, args=(name,)))
        threads[-1].start()
        time.sleep(0.05)  # each arrives after the one before
    turns.release()
    for thread in threads:
        thread.join()
    assert order == list("abcde")


def test_a_wait_that_runs_out_leaves_the_queue():
    turns = Turns()
    assert turns.acquire(timeout=1)
    assert not turns.acquire(timeout=0.05)
    turns.release()  # nobody waits any more: the turn is free
    assert turns.acquire(timeout=0)
