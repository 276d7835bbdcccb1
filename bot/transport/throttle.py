"""Per-user throttling: generous enough for the fastest thumbs, firm against scripts.

A token bucket per user (or group): `burst` at once, refilled at `rate` a second. A human
rarely sustains more than five taps a second; a script sends hundreds.

A throttle with a `ledger` (the database every process of the bot shares) is one budget for
all of them: this process's bucket is asked first, so a flood through it costs no
statement, then the shared one decides. Without one (a SQLite file, one process) this
process's bucket is the whole budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from cachetools import TTLCache

MAX_TRACKED_USERS = 100_000
# A bucket to spend in the shared ledger: (throttle's name, user or chat, rate, burst).
SharedBucket = tuple[str, int, float, float]


class ThrottleLedger(Protocol):
    """Where every process of the bot spends the throttles they share (the database)."""

    async def spend_throttles(self, buckets: Sequence[SharedBucket]) -> bool:
        """Spend one token of each bucket, in one statement; whether every one had it."""


class Throttle:
    def __init__(
        self,
        rate: float,
        burst: float,
        clock: Callable[[], float] = time.monotonic,
        *,
        name: str = "",
        ledger: ThrottleLedger | None = None,
    ) -> None:
        """`name` and `ledger`: the bucket every process shares, if any (`spend`)."""
        self._rate = rate
        self._burst = burst
        self._clock = clock
        self._name = name
        self._ledger = ledger
        # (tokens, when) per user. A bucket untouched for burst / rate seconds is full again,
        # the same as no bucket at all, so it may be forgotten.
        self._buckets: TTLCache[int, tuple[float, float]] = TTLCache(
            MAX_TRACKED_USERS, ttl=burst / rate, timer=clock
        )

    def allow(self, user_id: int) -> bool:
        """This process's bucket alone."""
        now = self._clock()
        tokens, since = self._buckets.get(user_id, (self._burst, now))
        tokens = min(self._burst, tokens + (now - since) * self._rate)
        if tokens < 1:
            self._buckets[user_id] = (tokens, now)
            return False
        self._buckets[user_id] = (tokens - 1, now)
        return True

    @property
    def ledger(self) -> ThrottleLedger | None:
        """Where the bucket every process shares is kept; None: this process's is the budget."""
        return self._ledger

    def shared(self, key: int) -> SharedBucket:
        """`key`'s bucket in the ledger every process shares."""
        return (self._name, key, self._rate, self._burst)

    async def spend(self, key: int) -> bool:
        """Whether `key` is within the budget every process shares (`spend_all`)."""
        return await spend_all((self, key))


def spend_here(*asks: tuple[Throttle, int]) -> list[SharedBucket] | None:
    """Each (throttle, key) asked spent in this process's bucket: None if one refuses, else
    the shared buckets still to spend (none: allowed), in one statement, which may be one
    the update makes anyway (`PlayerService.spend_message`)."""
    allowed = [throttle.allow(key) for throttle, key in asks]
    if not all(allowed):
        return None
    return [throttle.shared(key) for throttle, key in asks if throttle.ledger is not None]


async def spend_all(*asks: tuple[Throttle, int]) -> bool:
    """Whether every (throttle, key) asked is within its budget: this process's buckets,
    then the shared ones in one statement of their own (one ledger: the process has one
    database)."""
    buckets = spend_here(*asks)
    if buckets is None:
        return False
    ledger = next((throttle.ledger for throttle, _ in asks if throttle.ledger is not None), None)
    return ledger is None or await ledger.spend_throttles(buckets)
