"""Throttles count exactly under concurrency (atomic cache counters, Redis in CI) and cannot be
escaped with a forged X-Forwarded-For."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import RequestFactory

from core.throttling import AnonThrottle, UserThrottle

pytestmark = pytest.mark.django_db


def _throttle(rate):
    throttle = AnonThrottle()
    throttle.rate = rate
    throttle.num_requests, throttle.duration = throttle.parse_rate(rate)
    return throttle


def test_concurrent_requests_get_exactly_the_limit():
    cache.clear()
    request = RequestFactory().get("/api/v1/datasets/", REMOTE_ADDR="10.1.2.3")
    request.user = type("Anon", (), {"is_authenticated": False})()

    def attempt(_):
        return _throttle("100/hour").allow_request(request, None)

    with ThreadPoolExecutor(max_workers=16) as pool:
        allowed = sum(pool.map(attempt, range(320)))
    assert allowed == 100, settings.CACHES["default"]["BACKEND"]


@pytest.fixture
def three_a_minute(monkeypatch):
    monkeypatch.setattr(AnonThrottle, "THROTTLE_RATES", {"anon": "3/minute", "user": "3/minute"})
    monkeypatch.setattr(UserThrottle, "THROTTLE_RATES", {"anon": "3/minute", "user": "3/minute"})
    cache.clear()


def test_a_forged_forwarded_for_does_not_escape(three_a_minute, client):
    statuses = [
        client.get("/api/v1/leaderboards/", HTTP_X_FORWARDED_FOR=f"203.0.113.{k}").status_code
        for k in range(6)
    ]
    assert statuses == [200, 200, 200, 429, 429, 429]


def test_behind_a_trusted_proxy_the_forwarded_address_counts(three_a_minute, client, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    # The proxy appends the address it saw; whatever the client wrote before it is ignored.
    first = [
        client.get("/api/v1/leaderboards/", HTTP_X_FORWARDED_FOR=f"1.1.1.{k}, 198.51.100.7")
        for k in range(4)
    ]
    other = client.get("/api/v1/leaderboards/", HTTP_X_FORWARDED_FOR="198.51.100.8")
    assert [r.status_code for r in first] == [200, 200, 200, 429]
    assert other.status_code == 200
    assert "Retry-After" in first[-1]
