"""Webhook mode: answer Telegram's POST only once the update has been handled.

Telegram sends the updates of one chat one at a time: the next only after the webhook
answered the previous one. python-telegram-bot's webhook server answers as soon as it has
queued an update, which is fine for one process but not for several behind one URL: the
second tap of a chat could reach another process and be applied before the first. Holding
the answer until the handler has finished (and so committed) extends Telegram's per-chat
order across processes; different chats still run concurrently, up to `max_connections`.

The pieces are public python-telegram-bot extension points: the Application's update queue
(whose `put` the webhook server awaits) and an update processor (which runs each update).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

from telegram import Update

from bot.transport.updates import MAX_CONCURRENT_UPDATES, ChatOrderedProcessor, Overflow

log = logging.getLogger(__name__)
# Telegram gives up on a webhook request after about a minute and sends the update again;
# answer well before that even if a handler hangs, so it is not applied twice.
ACK_TIMEOUT = 25.0


class AcknowledgingQueue(asyncio.Queue[Any]):
    """An update queue whose `put` of an Update returns once that update has been handled."""

    def __init__(self, timeout: float = ACK_TIMEOUT) -> None:
        super().__init__()
        self._timeout = timeout
        self._pending: dict[int, asyncio.Future[None]] = {}

    async def put(self, item: Any) -> None:
        if not isinstance(item, Update):  # the Application's stop signal
            await super().put(item)
            return
        done = asyncio.get_running_loop().create_future()
        self._pending[id(item)] = done
        try:
            await super().put(item)
            await asyncio.wait_for(asyncio.shield(done), self._timeout)
        except TimeoutError:
            log.warning(
                "update %s still running after %ss; answered anyway", item.update_id, self._timeout
            )
        finally:
            self._pending.pop(id(item), None)

    def handled(self, item: object) -> None:
        done = self._pending.get(id(item))
        if done is not None and not done.done():
            done.set_result(None)


class AcknowledgingProcessor(ChatOrderedProcessor):
    """Runs updates like ChatOrderedProcessor, and tells the queue when each is done."""

    def __init__(
        self,
        queue: AcknowledgingQueue,
        max_concurrent_updates: int = MAX_CONCURRENT_UPDATES,
        overflow: Overflow | None = None,
    ) -> None:
        super().__init__(max_concurrent_updates, overflow)
        self._queue = queue

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        try:
            await super().do_process_update(update, coroutine)
        finally:
            self._queue.handled(update)
