"""Per-user tap throttling: generous enough for the fastest thumbs, firm against scripts.

A token bucket per user: `burst` taps at once, refilled at `rate` taps per second. A human
rarely sustains more than five taps a second; a script sends hundreds.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class Throttle:
    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rate = rate
        self._burst = burst
        self._clock = clock
        self._buckets: dict[int, tuple[float, float]] = {}

    def allow(self, user_id: int) -> bool:
        now = self._clock()
        tokens, since = self._buckets.get(user_id, (self._burst, now))
        tokens = min(self._burst, tokens + (now - since) * self._rate)
        if tokens < 1:
            self._buckets[user_id] = (tokens, now)
            return False
        self._buckets[user_id] = (tokens - 1, now)
        if len(self._buckets) > 100_000:
            self._forget_full_buckets(now)
        return True

    def _forget_full_buckets(self, now: float) -> None:
        """Drop users whose bucket has refilled: they are back to the default anyway."""
        full_after = self._burst / self._rate
        self._buckets = {
            user: state for user, state in self._buckets.items() if now - state[1] < full_after
        }
