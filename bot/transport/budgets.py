"""Each chat's budget: when it may send next, inside Telegram's flood limits.

Telegram takes about one message a second in a chat, with short bursts above that, and 20 a
minute in a group; edits count like sends. Past that it answers 429 and refuses the chat's
sends and edits for `retry_after`, which freezes a player's board for seconds to minutes.
So every send and edit takes a token from its chat's bucket (`take`, called by the rate
limiter for every request): a burst of five, then one a second, or 20 a minute in a group.
Telegram does not publish its burst size; five stays well inside what it allows.

A 429 that comes all the same (Telegram changed its limits, the token is used elsewhere)
holds that chat back for `retry_after`, then halves its pace and allows it no burst; the
pace doubles back after each quiet `recovery` period. Other chats never notice.

A bot runs one process (`LocalBudgets`: the buckets in its memory) or several of them on one
PostgreSQL database (webhook mode), which send into the same chats: then each chat's budget
must be one for all of them, and it is kept in the database (`DatabaseBudgets`), where one
statement reserves each send in turn. Should the database be away, each process falls back
to its own buckets until it is back.

The two differ in one step, `turn`: how a queued job (bot/transport/queues.py) waits for its
chat's turn to send. A process of its own waits until the chat has a token and leaves it to
the job's request. Among several, a token is a reservation in the database, made before the
job draws what it shows, so that it shows what is saved by the time its send may go; the
job's first request then goes out on that reservation instead of making another.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from cachetools import TLRUCache
from telegram.error import RetryAfter

from bot.config import Pace
from bot.models import SendAsk
from bot.storage import StorageUnavailable

log = logging.getLogger(__name__)
TRACKED_CHATS = 100_000


def retry_seconds(error: RetryAfter) -> float:
    """The flood wait a 429 imposes, in seconds."""
    wait = error.retry_after
    return wait.total_seconds() if isinstance(wait, timedelta) else float(wait)


@dataclass(slots=True)
class Turn:
    """A queued job's turn to send in its chat, for as long as the job runs.

    `reserved`: the job's send was reserved before it began (`DatabaseBudgets`), and is not
    spent yet; its first request spends it.
    """

    reserved: bool = False


@dataclass(frozen=True, slots=True)
class Reserved:
    """A send reserved in the database before its job was queued (with a move's save):
    seconds until it may go and until the chat's flood wait ends, counted from `at` (the
    budgets' clock)."""

    wait: float
    held: float
    at: float


# The turn of the queued job the running task is part of, set by the chat's queue for the
# job's run. One variable for the two things a request must know of its job: that it is in
# one (a 429 sends the job back into its queue rather than being retried), and whether its
# send is reserved already.
JOB_TURN: ContextVar[Turn | None] = ContextVar("pacer_job_turn", default=None)


class ChatBudgets(Protocol):
    """When each chat may send: its tokens, its flood wait, how much it is slowed."""

    async def take(self, chat_id: int) -> None:
        """Wait until the chat may send, and spend its send (for a request going out now)."""

    async def turn(self, chat_id: int, reserved: Reserved | None = None) -> Turn:
        """Wait for the chat's turn to run a queued job that sends: the job runs on it.

        `reserved`: the job's send was reserved already, with the move it shows."""

    def ask(self, chat_id: int) -> SendAsk | None:
        """What reserves the chat's next send in the statement that saves a move, if the
        budget is the database's; None: the job's turn reserves it."""

    def held_back(self, chat_id: int) -> float:
        """Seconds left of a flood wait Telegram imposed on the chat (0: none)."""

    def pace_factor(self, chat_id: int) -> float:
        """The share of its normal pace the chat goes at now: 1, or less after a 429."""

    def flood_wait(self, chat_id: int, seconds: float) -> None:
        """Telegram answered 429: hold the chat back `seconds`, then slow it for a while."""

    def flood_waits(self) -> int:
        """Chats held back by a flood wait now."""


class SharedBudgets(Protocol):
    """Every chat's budget in one place for all the bot's processes (the database)."""

    async def reserve_send(
        self, chat_id: int, interval: float, burst: float, recovery: float
    ) -> tuple[float, float]:
        """Spend the chat's next send: seconds until it may go, and until a flood wait ends."""

    async def hold_back(
        self, chat_id: int, seconds: float, recovery: float, slowest: float
    ) -> None:
        """Telegram answered 429 in the chat: its flood wait, then a slower pace."""


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float
    blocked_until: float = -math.inf
    # The pace factor set by the last 429, and when: it doubles back every `recovery`.
    factor: float = 1.0
    slowed_at: float = -math.inf


class LocalBudgets(ChatBudgets):
    """Each chat's token bucket in this process's memory.

    `pace=None` paces nothing: only flood waits hold a chat back (for benchmarks).
    """

    def __init__(self, pace: Pace | None, clock: Callable[[], float] = time.monotonic) -> None:
        self._pace = pace
        self._clock = clock
        # A chat is forgotten once its bucket is full again, its flood wait over and its pace
        # recovered: then it is no different from a chat never seen.
        self._buckets: TLRUCache[int, _Bucket] = TLRUCache(
            TRACKED_CHATS, ttu=self._settled_at, timer=clock
        )

    def _factor(self, bucket: _Bucket, now: float) -> float:
        if bucket.factor >= 1 or self._pace is None:
            return 1.0
        steps = math.floor((now - bucket.slowed_at) / self._pace.recovery)
        return min(1.0, bucket.factor * 2**steps)

    def _capacity(self, bucket: _Bucket, now: float) -> float:
        assert self._pace is not None
        return self._pace.burst if self._factor(bucket, now) >= 1 else 1.0

    def _settled_at(self, chat_id: int, bucket: _Bucket, now: float) -> float:
        if self._pace is None:
            return bucket.blocked_until
        rate = self._pace.per_second(chat_id) * self._factor(bucket, now)
        full_at = now + max(0.0, self._pace.burst - bucket.tokens) / rate
        recovered_at = now
        if bucket.factor < 1:
            steps = math.ceil(math.log2(1 / bucket.factor))
            recovered_at = bucket.slowed_at + steps * self._pace.recovery
        return max(bucket.blocked_until, full_at, recovered_at)

    def _bucket(self, chat_id: int, now: float) -> _Bucket:
        """The chat's bucket, its tokens refilled up to `now`."""
        bucket = self._buckets.get(chat_id)
        if bucket is None:
            burst = self._pace.burst if self._pace else 0.0
            return _Bucket(burst, now)
        if self._pace is not None:
            rate = self._pace.per_second(chat_id) * self._factor(bucket, now)
            bucket.tokens = min(
                self._capacity(bucket, now), bucket.tokens + (now - bucket.updated) * rate
            )
        bucket.updated = now
        return bucket

    def _wait(self, chat_id: int, bucket: _Bucket, now: float) -> float:
        """Seconds until the chat may send: its flood wait is over and it has a token."""
        held = bucket.blocked_until - now
        if self._pace is None:
            return held
        rate = self._pace.per_second(chat_id) * self._factor(bucket, now)
        return max(held, (1 - bucket.tokens) / rate)

    async def take(self, chat_id: int) -> None:
        while True:
            now = self._clock()
            bucket = self._bucket(chat_id, now)
            wait = self._wait(chat_id, bucket, now)
            if wait <= 0:
                bucket.tokens -= 1
                self._buckets[chat_id] = bucket  # stored again: its time to live moved
                return
            await asyncio.sleep(wait)

    def ask(self, chat_id: int) -> SendAsk | None:
        return None

    async def turn(self, chat_id: int, reserved: Reserved | None = None) -> Turn:
        """Wait until the chat has a token, and leave it to the job's request."""
        while (wait := self._wait(chat_id, self._bucket(chat_id, now := self._clock()), now)) > 0:
            await asyncio.sleep(wait)
        return Turn()

    def held_back(self, chat_id: int) -> float:
        bucket = self._buckets.get(chat_id)
        return max(0.0, bucket.blocked_until - self._clock()) if bucket else 0.0

    def pace_factor(self, chat_id: int) -> float:
        bucket = self._buckets.get(chat_id)
        return self._factor(bucket, self._clock()) if bucket else 1.0

    def flood_wait(self, chat_id: int, seconds: float) -> None:
        now = self._clock()
        bucket = self._bucket(chat_id, now)
        bucket.blocked_until = max(bucket.blocked_until, now + seconds)
        bucket.tokens = min(bucket.tokens, 0.0)
        if self._pace is not None:
            bucket.factor = max(self._pace.slowest, self._factor(bucket, now) / 2)
            bucket.slowed_at = now
        self._buckets[chat_id] = bucket
        log.warning(
            "chat %s: flood wait of %.0f s from Telegram; its pace is slowed for a while",
            chat_id,
            seconds,
        )

    def hold(self, chat_id: int, seconds: float) -> None:
        """Hold the chat back `seconds` for a flood wait another process met: what this one
        tells its players says so too. Its pace is the database's to slow."""
        now = self._clock()
        bucket = self._bucket(chat_id, now)
        bucket.blocked_until = max(bucket.blocked_until, now + seconds)
        self._buckets[chat_id] = bucket

    def flood_waits(self) -> int:
        now = self._clock()
        return sum(1 for bucket in list(self._buckets.values()) if bucket.blocked_until > now)


class DatabaseBudgets(ChatBudgets):
    """Each chat's budget in the database, one for all the bot's processes.

    What a process tells about a chat (held back, slowed) is what it learnt itself: its own
    429s, and the flood waits the database reports with a reservation. Those live in its
    `LocalBudgets`, which also paces the chats while the database is away.
    """

    def __init__(
        self, shared: SharedBudgets, pace: Pace, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._shared = shared
        self._pace = pace
        self._clock = clock
        self._local = LocalBudgets(pace, clock)
        self._recording: set[asyncio.Task[None]] = set()  # flood waits on their way there

    async def take(self, chat_id: int) -> None:
        turn = JOB_TURN.get()
        if turn is not None and turn.reserved:
            turn.reserved = False  # the queued job's send, reserved before it ran
            return
        if not await self._reserve(chat_id):
            await self._local.take(chat_id)

    def ask(self, chat_id: int) -> SendAsk | None:
        if self.held_back(chat_id) > 0:
            return None  # the turn waits the flood wait out, then reserves
        return SendAsk(
            chat_id, 1 / self._pace.per_second(chat_id), self._pace.burst, self._pace.recovery
        )

    async def turn(self, chat_id: int, reserved: Reserved | None = None) -> Turn:
        """Reserve the chat's send before the job draws what it shows (unless the move it
        shows reserved it), and wait for its time: the job's first request goes out on it."""
        if reserved is None or not await self._wait_for(chat_id, reserved):
            await self.take(chat_id)
        return Turn(reserved=True)

    async def _wait_for(self, chat_id: int, reserved: Reserved) -> bool:
        """Wait for a send reserved earlier; False if a 429 came meanwhile (reserve anew)."""
        elapsed = self._clock() - reserved.at
        return await self._wait_reserved(chat_id, reserved.wait - elapsed, reserved.held - elapsed)

    async def _wait_reserved(self, chat_id: int, wait: float, held: float) -> bool:
        if held > 0:  # another process met a 429 here: toasts say so in this one too
            self._local.hold(chat_id, held)
        wait = max(wait, held, self.held_back(chat_id))
        if wait > 0:
            await asyncio.sleep(wait)
        # A 429 came while this send waited for its time: the caller reserves one after it.
        return self.held_back(chat_id) <= 0

    async def _reserve(self, chat_id: int) -> bool:
        """Reserve the chat's next send in the database and wait for its time; False if the
        database is away (the process's own budget paces the chat meanwhile)."""
        interval = 1 / self._pace.per_second(chat_id)
        while True:
            try:
                wait, held = await self._shared.reserve_send(
                    chat_id, interval, self._pace.burst, self._pace.recovery
                )
            except StorageUnavailable:
                return False
            if await self._wait_reserved(chat_id, wait, held):
                return True

    def held_back(self, chat_id: int) -> float:
        return self._local.held_back(chat_id)

    def pace_factor(self, chat_id: int) -> float:
        return self._local.pace_factor(chat_id)

    def flood_wait(self, chat_id: int, seconds: float) -> None:
        self._local.flood_wait(chat_id, seconds)
        task = asyncio.create_task(self._record_flood_wait(chat_id, seconds))
        self._recording.add(task)
        task.add_done_callback(self._recording.discard)

    async def _record_flood_wait(self, chat_id: int, seconds: float) -> None:
        """Tell the other processes: they hold the chat back too, and slow it down."""
        try:
            await self._shared.hold_back(chat_id, seconds, self._pace.recovery, self._pace.slowest)
        except StorageUnavailable:
            log.warning("chat %s: flood wait not shared with other processes", chat_id)

    def flood_waits(self) -> int:
        return self._local.flood_waits()
