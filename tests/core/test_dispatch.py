"""Debounced dispatch: one task per burst, sent with the debounce as its countdown."""

import pytest
from django.core.cache import cache

from core.dispatch import dispatch_debounced


@pytest.fixture
def sent(monkeypatch):
    calls = []
    monkeypatch.setattr(
        "core.dispatch.dispatch",
        lambda name, *args, countdown=None: calls.append((name, args, countdown)) or True,
    )
    cache.clear()
    yield calls
    cache.clear()


def test_a_burst_sends_the_task_once_with_the_debounce_as_countdown(sent):
    assert dispatch_debounced("qc-1-2", 2, "annotate.rating.tasks.rater_qc", 1, 2)
    assert not dispatch_debounced("qc-1-2", 2, "annotate.rating.tasks.rater_qc", 1, 2)
    assert sent == [("annotate.rating.tasks.rater_qc", (1, 2), 2)]


def test_other_keys_are_debounced_apart(sent):
    dispatch_debounced("qc-1-2", 2, "annotate.rating.tasks.rater_qc", 1, 2)
    dispatch_debounced("qc-1-3", 2, "annotate.rating.tasks.rater_qc", 1, 3)
    assert [args for _, args, _ in sent] == [(1, 2), (1, 3)]


def test_the_next_burst_sends_again_once_the_key_expired(sent):
    dispatch_debounced("w-1", 3, "annotate.rating.tasks.campaign_weights", 1)
    cache.delete("debounce-w-1")  # what the timeout does
    dispatch_debounced("w-1", 3, "annotate.rating.tasks.campaign_weights", 1)
    assert len(sent) == 2
