"""Per-user tap throttling: generous enough for the fastest thumbs, firm against scripts.

A token bucket per user: `burst` taps at once, refilled at `rate` taps per second. A human
rarely sustains more than five taps a second; a script sends hundreds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from cachetools import TTLCache

MAX_TRACKED_USERS = 100_000


class Throttle:
    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rate = rate
        self._burst = burst
        self._clock = clock
        # (tokens, when) per user. A bucket untouched for burst / rate seconds is full again,
        # the same as no bucket at all, so it may be forgotten.
        self._buckets: TTLCache[int, tuple[float, float]] = TTLCache(
            MAX_TRACKED_USERS, ttl=burst / rate, timer=clock
        )

    def allow(self, user_id: int) -> bool:
        now = self._clock()
        tokens, since = self._buckets.get(user_id, (self._burst, now))
        tokens = min(self._burst, tokens + (now - since) * self._rate)
        if tokens < 1:
            self._buckets[user_id] = (tokens, now)
            return False
        self._buckets[user_id] = (tokens - 1, now)
        return True
