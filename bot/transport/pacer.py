"""One pace for everything the bot sends into a chat, inside Telegram's flood limits.

Telegram takes about one message a second in a chat, with short bursts above that, and 20 a
minute in a group; edits count like sends. Past that it answers 429 and refuses the chat's
sends and edits for `retry_after`, which freezes a player's board for seconds to minutes.
So every send and edit takes a token from its chat's bucket (`take`, called by the rate
limiter for every request): a burst of five, then one a second, or 20 a minute in a group.
Telegram does not publish its burst size; five stays well inside what it allows.

Handlers never wait for the pace: they hand what they send to the chat's queue and return,
so a tap is answered at once however far behind the chat's messages are. One worker per chat
runs the queue in order once a token is free. Posts (new messages) run one each; redraws
coalesce per message, and each draws the state saved when its turn comes, so a board always
ends on the latest move without an edit per tap. A post may name what it is the latest of
(a player's size menu, say): a newer post of that name replaces the one still waiting, so a
chat's queue holds at most one of each per player however fast they tap. A redraw may also
ask for a minimum time between two edits of its message (challenge cards: a few a minute,
however many play).

A 429 that comes all the same (Telegram changed its limits, the token is used elsewhere)
holds that chat back for `retry_after`, then halves its pace and allows it no burst; the
pace doubles back after each quiet `recovery` period. Other chats never notice.

Several processes of one bot (webhook mode, one PostgreSQL database) send into the same chats,
so each chat's budget must be one for all of them: `share_budgets` moves it into the database
(`SharedBudgets`), where one statement reserves each send in turn. A queued post or redraw
then reserves its send before it draws, so what it shows is as recent as its turn allows, and
its request goes out on that reservation. Should the database be away, each process falls
back to its own budget until it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from cachetools import TLRUCache
from telegram.error import RetryAfter

from bot.config import Pace
from bot.metrics import TAP_TO_EDIT
from bot.storage import StorageUnavailable

log = logging.getLogger(__name__)
Job = Callable[[], Awaitable[None]]
# Set while a queued job runs: its requests are not retried after a 429 but queued again.
_IN_JOB: ContextVar[bool] = ContextVar("in_pacer_job", default=False)
# Set while a queued job runs whose send was reserved before it started: holds one unspent
# reservation, which the job's first request takes instead of reserving another.
_RESERVED: ContextVar[list[bool] | None] = ContextVar("pacer_reserved_send", default=None)
TRACKED_CHATS = 100_000


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
class _Budget:
    tokens: float
    updated: float
    blocked_until: float = -math.inf
    # The pace factor set by the last 429, and when: it doubles back every `recovery`.
    factor: float = 1.0
    slowed_at: float = -math.inf


@dataclass(slots=True)
class _Item:
    job: Job
    due: float
    message_id: int | None = None  # what a redraw edits; None for a post
    every: float = 0.0
    queued: float = 0.0  # when first asked for: a redraw that replaces another keeps its time


def retry_seconds(error: RetryAfter) -> float:
    """The flood wait a 429 imposes, in seconds."""
    wait = error.retry_after
    return wait.total_seconds() if isinstance(wait, timedelta) else float(wait)


class Pacer:
    def __init__(self, pace: Pace | None, clock: Callable[[], float] = time.monotonic) -> None:
        """`pace=None` paces nothing (flood waits still hold a chat back): for benchmarks."""
        self._pace = pace
        self._clock = clock
        # A chat is forgotten once its bucket is full again, its flood wait over and its pace
        # recovered: then it is no different from a chat never seen.
        self._budgets: TLRUCache[int, _Budget] = TLRUCache(
            TRACKED_CHATS, ttu=self._settled_at, timer=clock
        )
        self._queues: dict[int, OrderedDict[Hashable, _Item]] = {}
        self._wake: dict[int, asyncio.Event] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        # Per (chat, message) redrawn with a minimum interval: when the next edit may run.
        self._not_before: TLRUCache[tuple[int, int], float] = TLRUCache(
            TRACKED_CHATS, ttu=lambda _key, until, _now: until, timer=clock
        )
        self._posts = itertools.count()
        self._shared: SharedBudgets | None = None
        self._recording: set[asyncio.Task[None]] = set()  # flood waits on their way there

    def share_budgets(self, shared: SharedBudgets) -> None:
        """Keep every chat's budget in `shared` from now on, for all processes of the bot."""
        if self._pace is not None:
            self._shared = shared

    # ----- the budget ---------------------------------------------------------------------

    def _factor(self, budget: _Budget, now: float) -> float:
        if budget.factor >= 1 or self._pace is None:
            return 1.0
        steps = math.floor((now - budget.slowed_at) / self._pace.recovery)
        return min(1.0, budget.factor * 2**steps)

    def _capacity(self, budget: _Budget, now: float) -> float:
        assert self._pace is not None
        return self._pace.burst if self._factor(budget, now) >= 1 else 1.0

    def _settled_at(self, chat_id: int, budget: _Budget, now: float) -> float:
        if self._pace is None:
            return budget.blocked_until
        rate = self._pace.per_second(chat_id) * self._factor(budget, now)
        full_at = now + max(0.0, self._pace.burst - budget.tokens) / rate
        recovered_at = now
        if budget.factor < 1:
            steps = math.ceil(math.log2(1 / budget.factor))
            recovered_at = budget.slowed_at + steps * self._pace.recovery
        return max(budget.blocked_until, full_at, recovered_at)

    def _budget(self, chat_id: int, now: float) -> _Budget:
        """The chat's budget, its tokens refilled up to `now`."""
        budget = self._budgets.get(chat_id)
        if budget is None:
            burst = self._pace.burst if self._pace else 0.0
            return _Budget(burst, now)
        if self._pace is not None:
            rate = self._pace.per_second(chat_id) * self._factor(budget, now)
            budget.tokens = min(
                self._capacity(budget, now), budget.tokens + (now - budget.updated) * rate
            )
        budget.updated = now
        return budget

    def _wait(self, chat_id: int, budget: _Budget, now: float) -> float:
        """Seconds until the chat may send: its flood wait is over and it has a token."""
        held = budget.blocked_until - now
        if self._pace is None:
            return held
        rate = self._pace.per_second(chat_id) * self._factor(budget, now)
        return max(held, (1 - budget.tokens) / rate)

    async def take(self, chat_id: int) -> None:
        """Wait until the chat may send, and spend one of its tokens."""
        reserved = _RESERVED.get()
        if reserved:
            reserved.clear()  # the queued job's send, reserved before it ran
            return
        if self._shared is not None and await self._take_shared(chat_id, self._shared):
            return
        while True:
            now = self._clock()
            budget = self._budget(chat_id, now)
            wait = self._wait(chat_id, budget, now)
            if wait <= 0:
                budget.tokens -= 1
                self._budgets[chat_id] = budget  # stored again: its time to live moved
                return
            await asyncio.sleep(wait)

    async def _take_shared(self, chat_id: int, shared: SharedBudgets) -> bool:
        """Reserve the chat's next send in the shared budget and wait for its time; False
        if the database is away (the process's own budget paces the chat meanwhile)."""
        assert self._pace is not None
        interval = 1 / self._pace.per_second(chat_id)
        while True:
            try:
                wait, held = await shared.reserve_send(
                    chat_id, interval, self._pace.burst, self._pace.recovery
                )
            except StorageUnavailable:
                return False
            if held > 0:  # another process met a 429 here: toasts say so in this one too
                budget = self._budget(chat_id, now := self._clock())
                budget.blocked_until = max(budget.blocked_until, now + held)
                self._budgets[chat_id] = budget
            wait = max(wait, held, self.held_back(chat_id))
            if wait > 0:
                await asyncio.sleep(wait)
            if self.held_back(chat_id) <= 0:
                return True
            # A 429 came while this send waited for its time: reserve one after the wait.

    async def _ready(self, chat_id: int) -> None:
        """Wait until the chat may send, leaving the token to the request that follows."""
        while (wait := self._wait(chat_id, self._budget(chat_id, now := self._clock()), now)) > 0:
            await asyncio.sleep(wait)

    def pace_factor(self, chat_id: int) -> float:
        """The share of its normal pace the chat goes at now: 1, or less after a 429."""
        budget = self._budgets.get(chat_id)
        return self._factor(budget, self._clock()) if budget else 1.0

    def held_back(self, chat_id: int) -> float:
        """Seconds left of a flood wait Telegram imposed on the chat (0: none)."""
        budget = self._budgets.get(chat_id)
        return max(0.0, budget.blocked_until - self._clock()) if budget else 0.0

    def flood_wait(self, chat_id: int, seconds: float) -> None:
        """Telegram answered 429: hold the chat back `seconds`, then slow it for a while."""
        now = self._clock()
        budget = self._budget(chat_id, now)
        budget.blocked_until = max(budget.blocked_until, now + seconds)
        budget.tokens = min(budget.tokens, 0.0)
        if self._pace is not None:
            budget.factor = max(self._pace.slowest, self._factor(budget, now) / 2)
            budget.slowed_at = now
        self._budgets[chat_id] = budget
        log.warning(
            "chat %s: flood wait of %.0f s from Telegram; its pace is slowed for a while",
            chat_id,
            seconds,
        )
        if self._shared is not None and self._pace is not None:
            task = asyncio.create_task(self._record_flood_wait(self._shared, chat_id, seconds))
            self._recording.add(task)
            task.add_done_callback(self._recording.discard)

    async def _record_flood_wait(self, shared: SharedBudgets, chat_id: int, seconds: float) -> None:
        """Tell the other processes: they hold the chat back too, and slow it down."""
        assert self._pace is not None
        try:
            await shared.hold_back(chat_id, seconds, self._pace.recovery, self._pace.slowest)
        except StorageUnavailable:
            log.warning("chat %s: flood wait not shared with other processes", chat_id)

    @staticmethod
    def in_job() -> bool:
        """Whether the caller runs inside a queued job (whose 429s the queue handles)."""
        return _IN_JOB.get()

    # ----- the queues ---------------------------------------------------------------------

    def post(self, chat_id: int, job: Job, *, latest_of: Hashable | None = None) -> None:
        """Send something new into the chat, after what was queued before it.

        With `latest_of`, a post of the same `latest_of` still waiting is replaced by this
        one, in its place: nobody needs two thousand size menus.
        """
        key = ("post", next(self._posts)) if latest_of is None else ("latest", latest_of)
        self._enqueue(chat_id, key, _Item(job, -math.inf))

    def edit(
        self,
        chat_id: int,
        message_id: int,
        draw: Job,
        *,
        replace: bool = True,
        every: float = 0.0,
    ) -> None:
        """Edit `message_id` soon; a later request for it replaces one still waiting.

        `draw` reads what it shows when it runs. `replace=False` is for a draw asking to run
        again: a request still waiting comes from a newer tap, with that player's current view
        and language, and is kept. `every` is the least time between two edits of the message.
        """
        key = ("edit", message_id)
        queue = self._queues.get(chat_id)
        if not replace and queue is not None and key in queue:
            return
        due = self._not_before.get((chat_id, message_id), -math.inf)
        self._enqueue(chat_id, key, _Item(draw, due, message_id, every))

    def _enqueue(self, chat_id: int, key: Hashable, item: _Item) -> None:
        queue = self._queues.setdefault(chat_id, OrderedDict())
        waiting = queue.get(key)
        item.queued = self._clock() if waiting is None else waiting.queued
        queue[key] = item  # a redraw still waiting keeps its place in the queue
        if chat_id in self._workers:
            self._wake[chat_id].set()
        else:
            self._wake[chat_id] = asyncio.Event()
            self._workers[chat_id] = asyncio.create_task(self._work(chat_id))

    def _next(self, chat_id: int, now: float) -> tuple[Hashable, _Item] | float:
        """The first queued item that is due, or the time the first one will be."""
        queue = self._queues[chat_id]
        for key, item in queue.items():
            if item.due <= now:
                return key, item
        return min(item.due for item in queue.values())

    async def _work(self, chat_id: int) -> None:
        queue = self._queues[chat_id]
        wake = self._wake[chat_id]
        try:
            while queue:
                if self._shared is None:
                    await self._ready(chat_id)
                if not queue:
                    break  # emptied at shutdown meanwhile
                found = self._next(chat_id, self._clock())
                if not isinstance(found, tuple):
                    wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(wake.wait(), found - self._clock())
                    continue
                key, item = found
                if self._shared is not None:
                    # The send is reserved before the job draws: it goes out on its turn with
                    # what is saved by then (a newer redraw may have replaced the item).
                    await self.take(chat_id)
                    if key not in queue:
                        break  # emptied at shutdown meanwhile
                    item = queue[key]
                del queue[key]
                if item.message_id is not None and item.every > 0:
                    self._not_before[(chat_id, item.message_id)] = self._clock() + item.every
                await self._run(chat_id, key, item, reserved=self._shared is not None)
        finally:
            del self._workers[chat_id], self._wake[chat_id]
            if not queue:
                del self._queues[chat_id]

    async def _run(self, chat_id: int, key: Hashable, item: _Item, *, reserved: bool) -> None:
        token = _IN_JOB.set(True)
        reservation = _RESERVED.set([True] if reserved else None)
        try:
            await item.job()
            if item.message_id is not None and item.every == 0:
                TAP_TO_EDIT.observe(self._clock() - item.queued)
        except RetryAfter as error:
            # Held back: run it again once the wait is over (the rate limiter has reported the
            # wait already), unless a newer request for the same message has come meanwhile.
            if self.held_back(chat_id) <= 0:
                self.flood_wait(chat_id, retry_seconds(error))
            queue = self._queues[chat_id]
            if key not in queue:
                queue[key] = item
                queue.move_to_end(key, last=False)
        except Exception:
            log.exception("sending %s in chat %s failed", key, chat_id)
        finally:
            _RESERVED.reset(reservation)
            _IN_JOB.reset(token)

    def backlog(self) -> tuple[int, float]:
        """What waits in the queues now: how many items, and the oldest one's seconds."""
        queued = [item.queued for queue in self._queues.values() for item in queue.values()]
        return len(queued), self._clock() - min(queued) if queued else 0.0

    def flood_waits(self) -> int:
        """Chats held back by a flood wait now."""
        now = self._clock()
        return sum(1 for budget in list(self._budgets.values()) if budget.blocked_until > now)

    async def drain(self, timeout: float) -> None:
        """At shutdown: send what is queued, but give up after `timeout` seconds.

        A chat held back longer than that by a flood wait is given up at once: its queue
        would only go out after the process is gone. So is a redraw still waiting out its
        interval (a challenge card): the state is saved, and the next tap draws it.
        """
        now = self._clock()
        deadline = now + timeout
        for chat_id, queue in self._queues.items():
            for key in [key for key, item in queue.items() if item.due > now]:
                del queue[key]
            self._wake[chat_id].set()
        for chat_id, worker in list(self._workers.items()):
            if self.held_back(chat_id) > timeout:
                worker.cancel()
        pending = [worker for worker in self._workers.values() if not worker.done()]
        if pending:
            await asyncio.wait(pending, timeout=max(0.0, deadline - self._clock()))
        left = sum(len(queue) for queue in self._queues.values())
        for worker in list(self._workers.values()):
            worker.cancel()
        if self._workers:
            await asyncio.wait(list(self._workers.values()))
        if left:
            log.warning("%d messages and edits not sent at shutdown", left)
