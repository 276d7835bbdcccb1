"""Updates of different chats run concurrently; the updates of one chat, one at a time.

Two quick taps on one board must apply in the order they were made, and a board's redraw
must never see the second before the first. python-telegram-bot's concurrent processing
gives no order at all, so each update here waits for the previous update of its chat first.

The wait holds none of the processing slots: a chat that floods the bot queues behind
itself, and every other chat still finds a free slot.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Coroutine
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from bot.metrics import UPDATES

MAX_CONCURRENT_UPDATES = 256  # what concurrent_updates(True) means in python-telegram-bot
# python-telegram-bot's own bound is taken only after a chat's turn has come (see below), so
# its semaphore is set beyond reach and `_slots` does the real bounding.
_UNBOUNDED = 2**31 - 1


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


class ChatOrderedProcessor(BaseUpdateProcessor):
    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(_UNBOUNDED)
        self._slots = asyncio.Semaphore(max_concurrent_updates)
        # Per chat, the future the chat's latest update resolves when it is done.
        self._last: dict[int, asyncio.Future[None]] = {}

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
