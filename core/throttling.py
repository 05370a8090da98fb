"""API throttles that count exactly under concurrency, and a client address nobody can forge.

DRF's throttles keep a list of timestamps per client and write it back after reading it: two
requests at once both read the same list and both pass (an overshoot of about a quarter was
measured at 16 concurrent requests). These count in a fixed window with the cache's atomic
`add` and `incr` (Redis INCRBY in production), so the limit holds to the request.

The client's address is REMOTE_ADDR unless the settings name how many proxies in front of the
application append to X-Forwarded-For (`TRUSTED_PROXY_COUNT`, DRF's NUM_PROXIES): a header the
client wrote itself is never believed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle


def client_address(request: Any) -> str:
    """The client's address: REMOTE_ADDR, or behind `TRUSTED_PROXY_COUNT` proxies the address
    the outermost trusted proxy saw (the entry it appended to X-Forwarded-For). The API's
    throttles and the login lockout (django-axes) both ask here."""
    meta = getattr(request, "META", {})
    remote = meta.get("REMOTE_ADDR", "")
    proxies = settings.TRUSTED_PROXY_COUNT
    forwarded = [a.strip() for a in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
    if proxies <= 0 or not forwarded:
        return remote
    return forwarded[-min(proxies, len(forwarded))]


class AtomicWindowMixin(SimpleRateThrottle):
    """A fixed-window counter: at most `num_requests` per window of `duration` seconds."""

    window_end: float = 0.0
    num_requests: int
    duration: int

    def allow_request(self, request: Any, view: Any) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        now = self.timer()
        window = int(now // self.duration)
        self.window_end = (window + 1) * self.duration
        counter = f"{key}:{window}"
        # Alive past the window's end, and only ever incremented inside the window, so `incr`
        # never meets an expired key (which Redis would recreate without an expiry).
        timeout = int(self.window_end - now) + 2
        if self.cache.add(counter, 1, timeout):
            return True
        try:
            count = self.cache.incr(counter)
        except ValueError:  # evicted meanwhile: start the window's count again
            self.cache.add(counter, 1, timeout)
            count = 1
        return count <= self.num_requests

    def wait(self) -> float:
        return max(0.0, self.window_end - self.timer())

    def get_ident(self, request: Any) -> str:
        return client_address(request)


class AnonThrottle(AtomicWindowMixin, AnonRateThrottle):
    """Anonymous requests, counted per client address."""


class UserThrottle(AtomicWindowMixin, UserRateThrottle):
    """Authenticated requests, counted per user (anonymous ones per address)."""
