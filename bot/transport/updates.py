"""Updates of different chats run concurrently; the updates of one chat, one at a time.

Two quick taps on one board must apply in the order they were made, and a board's redraw
must never see the second before the first. python-telegram-bot's concurrent processing
gives no order at all, so each update here waits for the previous update of its chat first.

The wait holds none of the processing slots: a chat that floods the bot queues behind
itself, and every other chat still finds a free slot. What waits is bounded too: each sender
may have `MAX_WAITING` updates waiting in a chat; the ones beyond skip the chat's order and
go to `overflow` at once (which refuses them, and answers a tap), so they are done with in
moments. A person never gets that far ahead of the bot; a script's burst would otherwise hold
a parsed update, its coroutine and its task (about 7 KB) per tap for as long as the chat
takes to work through them, and the process keeps memory it has grown to once. When polling,
`BoundedUpdateQueue` bounds the whole: what is fetched waits for room, at Telegram.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from bot.metrics import UPDATES

log = logging.getLogger(__name__)
MAX_CONCURRENT_UPDATES = 256  # what concurrent_updates(True) means in python-telegram-bot
# python-telegram-bot's own bound is taken only after a chat's turn has come (see below), so
# its semaphore is set beyond reach and `_slots` does the real bounding.
_UNBOUNDED = 2**31 - 1
# Updates of one sender waiting in one chat, the one running included, before more are refused:
# at five taps a second, twenty seconds of a chat that has fallen behind.
MAX_WAITING = 100
# Polling: updates fetched and not yet handled, and updates fetched and not yet taken.
IN_FLIGHT = 1024
QUEUED = 100  # one getUpdates answer


def update_kind(update: object) -> str:
    """What an update carries (message, callback_query, inline_query, ...), for the metrics."""
    if isinstance(update, Update):
        for kind in Update.ALL_TYPES:
            if getattr(update, kind, None) is not None:
                return kind
    return "other"


def chat_key(update: object) -> int | None:
    """The chat an update belongs to; None for updates without one (no order to keep)."""
    if isinstance(update, Update) and update.effective_chat is not None:
        return update.effective_chat.id
    return None


def _sender(update: object) -> int | None:
    if isinstance(update, Update) and update.effective_user is not None:
        return update.effective_user.id
    return None


class BoundedUpdateQueue(asyncio.Queue[Any]):
    """The Application's update queue when polling, holding at most what the bot can use.

    `get` waits while IN_FLIGHT updates taken are not done (the Application calls
    `task_done` as each one's processing ends) and `put` while QUEUED are waiting, so the
    updater stops fetching until the bot catches up: a burst waits at Telegram, not in this
    process's memory. Each update is handled in moments once taken (a flood's beyond its
    sender's wait is refused at once), so other chats' updates wait behind a burst briefly.
    """

    def __init__(self, queued: int = QUEUED, in_flight: int = IN_FLIGHT) -> None:
        super().__init__(queued)
        self._in_flight = in_flight
        self._taken = 0
        self._room = asyncio.Event()

    async def get(self) -> Any:
        while self._taken >= self._in_flight:
            self._room.clear()
            await self._room.wait()
        item = await super().get()
        self._taken += 1
        return item

    def task_done(self) -> None:
        super().task_done()
        self._taken = max(0, self._taken - 1)  # the shutdown's drain takes without `get`
        self._room.set()


# What becomes of an update beyond its sender's wait, instead of its handlers.
Overflow = Callable[[object], Awaitable[None]]


class ChatOrderedProcessor(BaseUpdateProcessor):
    def __init__(
        self,
        max_concurrent_updates: int = MAX_CONCURRENT_UPDATES,
        overflow: Overflow | None = None,
    ) -> None:
        super().__init__(_UNBOUNDED)
        self._slots = asyncio.Semaphore(max_concurrent_updates)
        self._overflow = overflow
        # Per chat, the future the chat's latest update resolves when it is done.
        self._last: dict[int, asyncio.Future[None]] = {}
        # Per chat and sender, their updates waiting or running.
        self._waiting: Counter[tuple[int, int | None]] = Counter()

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release: running updates finish or are cancelled by the Application."""

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        try:
            await self._in_order(update, coroutine)
        finally:
            UPDATES.labels(update_kind(update)).inc()

    async def _in_order(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = chat_key(update)
        if key is None:
            async with self._slots:
                await coroutine
            return
        sender = (key, _sender(update))
        if self._waiting[sender] >= MAX_WAITING:
            if isinstance(coroutine, Coroutine):
                coroutine.close()
            log.debug("update in chat %s refused: its sender has %d waiting", key, MAX_WAITING)
            if self._overflow is not None:
                async with self._slots:
                    await self._overflow(update)
            return
        self._waiting[sender] += 1
        previous = self._last.get(key)
        done = asyncio.get_running_loop().create_future()
        done.add_done_callback(lambda _: self._forget(key, done))
        self._last[key] = done
        try:
            if previous is not None:
                await asyncio.shield(previous)
            async with self._slots:
                await coroutine
        finally:
            self._waiting[sender] -= 1
            if not self._waiting[sender]:
                del self._waiting[sender]
            if (
                isinstance(coroutine, Coroutine)
                and inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED
            ):
                coroutine.close()  # cancelled before its turn: it never ran
            if previous is not None and not previous.done():
                # Cancelled while waiting: the chat's next update still waits for the one
                # before this one.
                previous.add_done_callback(lambda _: done.set_result(None))
            else:
                done.set_result(None)

    def _forget(self, key: int, done: asyncio.Future[None]) -> None:
        if self._last.get(key) is done:
            del self._last[key]
