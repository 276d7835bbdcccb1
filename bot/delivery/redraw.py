"""Board redraws that never fall behind: per chat one edit at a time, always the latest state.

A burst of taps commits every move at once, but redrawing after each of them would queue
stale edits and run into Telegram's per-chat pace. Instead a tap marks its message dirty;
one worker per chat edits dirty messages no faster than `interval`, and each edit renders
what the database holds at that moment, so several moves coalesce into one edit.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from cachetools import TTLCache

log = logging.getLogger(__name__)
Draw = Callable[[], Awaitable[None]]


class Redrawer:
    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval
        self._clock = clock
        self._dirty: dict[int, dict[int, Draw]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        # A chat's last edit matters for one interval; after that it delays nothing.
        self._last_edit: TTLCache[int, float] = TTLCache(100_000, ttl=interval, timer=clock)

    def request(self, chat_id: int, message_id: int, draw: Draw, *, replace: bool = True) -> None:
        """Ask for `message_id` to be redrawn; a later request for it replaces an earlier one.

        `replace=False` is for a draw asking to run again: a request still waiting comes from
        a newer tap, with that player's current view and language, and is kept.
        """
        pending = self._dirty.setdefault(chat_id, {})
        if replace or message_id not in pending:
            pending[message_id] = draw
        if chat_id not in self._workers:
            self._workers[chat_id] = asyncio.create_task(self._work(chat_id))

    async def _work(self, chat_id: int) -> None:
        try:
            while dirty := self._dirty.get(chat_id):
                wait = self._last_edit.get(chat_id, float("-inf")) + self._interval - self._clock()
                if wait > 0:
                    await asyncio.sleep(wait)
                message_id = next(iter(dirty))
                draw = dirty.pop(message_id)
                self._last_edit[chat_id] = self._clock()
                try:
                    await draw()
                except Exception:
                    log.exception("redrawing message %s in chat %s failed", message_id, chat_id)
        finally:
            del self._workers[chat_id]
            if not self._dirty.get(chat_id):
                self._dirty.pop(chat_id, None)

    async def drain(self, timeout: float) -> None:
        """At shutdown: let pending redraws finish for up to `timeout`, then drop the rest.

        A dropped redraw loses nothing: the state is saved, and the next tap draws it.
        """
        if not self._workers:
            return
        _, late = await asyncio.wait(list(self._workers.values()), timeout=timeout)
        for worker in late:
            worker.cancel()
        await asyncio.gather(*late, return_exceptions=True)
