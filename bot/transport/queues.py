"""Each chat's queue of what the bot sends into it, run in order at the chat's pace.

Handlers never wait for the pace: they hand what they send to the chat's queue and return,
so a tap is answered at once however far behind the chat's messages are. One worker per chat
runs the queue in order, each job on its chat's turn to send (bot/transport/budgets.py).
Posts (new messages) run one each; edits coalesce per message, and each draws the state
saved when its turn comes, so a board always ends on the latest move without an edit per
tap. A post may name what it is the latest of (a player's size menu, say): a newer post of
that name replaces the one still waiting, so a chat's queue holds at most one of each per
player however fast they tap. An edit may also ask for a minimum time between two edits of
its message (challenge cards: a few a minute, however many play), and a post a time before
which it may not go (a broadcast's slot in the bot-wide budget, bot/transport/broadcasts.py).

A job whose request meets a 429 goes back to the front of its queue and runs again once the
chat's flood wait is over, drawing what is saved by then; a request that was not queued is
retried by the rate limiter instead (bot/transport/ratelimit.py).
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
from dataclasses import dataclass

from cachetools import TLRUCache
from telegram.error import RetryAfter

from bot.metrics import TAP_TO_EDIT
from bot.transport.budgets import (
    JOB_TURN,
    TRACKED_CHATS,
    ChatBudgets,
    Reserved,
    Turn,
    retry_seconds,
)

log = logging.getLogger(__name__)
Job = Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Post:
    """A post of its own, numbered in the order it was asked for."""

    number: int


@dataclass(frozen=True, slots=True)
class LatestOf:
    """A post that replaces one of the same name still waiting."""

    name: Hashable


@dataclass(frozen=True, slots=True)
class Edit:
    """The edit of a message: one waits at most, however many are asked for."""

    message_id: int


Key = Post | LatestOf | Edit


@dataclass(slots=True)
class _Item:
    job: Job
    due: float  # not before: an edit's interval since the message's last edit, a broadcast's slot
    every: float = 0.0
    queued: float = 0.0  # when first asked for: an edit that replaces another keeps its time
    reserved: Reserved | None = None  # its send, reserved with the move it shows


class ChatQueues:
    def __init__(self, budgets: ChatBudgets, clock: Callable[[], float] = time.monotonic) -> None:
        self._budgets = budgets
        self._clock = clock
        self._queues: dict[int, OrderedDict[Key, _Item]] = {}
        self._wake: dict[int, asyncio.Event] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        # Per (chat, message) edited with a minimum interval: when the next edit may run.
        self._not_before: TLRUCache[tuple[int, int], float] = TLRUCache(
            TRACKED_CHATS, ttu=lambda _key, until, _now: until, timer=clock
        )
        self._posts = itertools.count()

    def post(
        self, chat_id: int, job: Job, *, latest_of: Hashable | None = None, after: float = 0.0
    ) -> None:
        """Send something new into the chat, after what was queued before it.

        With `latest_of`, a post of the same `latest_of` still waiting is replaced by this
        one, in its place: nobody needs two thousand size menus. With `after`, it goes no
        sooner than that many seconds from now (a broadcast's slot), and what is queued
        behind it meanwhile does not wait for it.
        """
        key = Post(next(self._posts)) if latest_of is None else LatestOf(latest_of)
        due = self._clock() + after if after > 0 else -math.inf
        self._enqueue(chat_id, key, _Item(job, due))

    def edit(
        self,
        chat_id: int,
        message_id: int,
        draw: Job,
        *,
        replace: bool = True,
        every: float = 0.0,
        reserved: tuple[float, float] | None = None,
    ) -> None:
        """Edit `message_id` soon; a later request for it replaces one still waiting.

        `draw` reads what it shows when it runs. `replace=False` is for a draw asking to run
        again: a request still waiting comes from a newer tap, with that player's current view
        and language, and is kept. `every` is the least time between two edits of the message.
        `reserved`: the edit's send, reserved already (seconds until it may go, and until the
        chat's flood wait ends), as `busy` said none was queued.
        """
        key = Edit(message_id)
        queue = self._queues.get(chat_id)
        if not replace and queue is not None and key in queue:
            return
        due = self._not_before.get((chat_id, message_id), -math.inf)
        send = None if reserved is None else Reserved(*reserved, self._clock())
        self._enqueue(chat_id, key, _Item(draw, due, every, reserved=send))

    def busy(self, chat_id: int) -> bool:
        """Whether the chat has something queued or being sent: a send reserved for a new
        edit now might go unspent (a waiting edit takes the new one's place)."""
        return chat_id in self._workers or bool(self._queues.get(chat_id))

    @staticmethod
    def in_job() -> bool:
        """Whether the caller runs inside a queued job (whose 429s the queue handles)."""
        return JOB_TURN.get() is not None

    def _enqueue(self, chat_id: int, key: Key, item: _Item) -> None:
        queue = self._queues.setdefault(chat_id, OrderedDict())
        waiting = queue.get(key)
        item.queued = self._clock() if waiting is None else waiting.queued
        if waiting is not None and item.reserved is None:
            item.reserved = waiting.reserved  # a send reserved for the edit it replaces
        queue[key] = item  # an edit still waiting keeps its place in the queue
        if chat_id in self._workers:
            self._wake[chat_id].set()
        else:
            self._wake[chat_id] = asyncio.Event()
            self._workers[chat_id] = asyncio.create_task(self._work(chat_id))

    async def _work(self, chat_id: int) -> None:
        queue = self._queues[chat_id]
        wake = self._wake[chat_id]
        JOB_TURN.set(None)  # started by a job in another chat, this worker is no part of it
        try:
            while queue:
                now = self._clock()
                if (due := min(item.due for item in queue.values())) > now:
                    wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(wake.wait(), due - now)
                    continue
                # The first due item's send, if its move reserved it: spent by this turn.
                first = next(item for item in queue.values() if item.due <= now)
                reserved, first.reserved = first.reserved, None
                turn = await self._budgets.turn(chat_id, reserved)
                # Chosen once the turn has come: the first item due by then, drawing what is
                # saved by then (a newer edit may have replaced the one that was due).
                now = self._clock()
                key = next(key for key, item in queue.items() if item.due <= now)
                item = queue.pop(key)
                if isinstance(key, Edit) and item.every > 0:
                    self._not_before[(chat_id, key.message_id)] = self._clock() + item.every
                await self._run(chat_id, key, item, turn)
        finally:
            del self._workers[chat_id], self._wake[chat_id]
            if not queue:
                del self._queues[chat_id]

    async def _run(self, chat_id: int, key: Key, item: _Item, turn: Turn) -> None:
        running = JOB_TURN.set(turn)
        try:
            await item.job()
            if isinstance(key, Edit) and item.every == 0:
                TAP_TO_EDIT.observe(self._clock() - item.queued)
        except RetryAfter as error:
            # Held back: run it again once the wait is over (the rate limiter has reported the
            # wait already), unless a newer request for the same message has come meanwhile.
            if self._budgets.held_back(chat_id) <= 0:
                self._budgets.flood_wait(chat_id, retry_seconds(error))
            queue = self._queues[chat_id]
            if key not in queue:
                queue[key] = item
                queue.move_to_end(key, last=False)
        except Exception:
            log.exception("sending %s in chat %s failed", key, chat_id)
        finally:
            JOB_TURN.reset(running)

    def backlog(self) -> tuple[int, float]:
        """What waits in the queues now: how many items, and the oldest one's seconds."""
        queued = [item.queued for queue in self._queues.values() for item in queue.values()]
        return len(queued), self._clock() - min(queued) if queued else 0.0

    async def drain(self, timeout: float) -> None:
        """At shutdown: send what is queued, but give up after `timeout` seconds.

        A chat held back longer than that by a flood wait is given up at once: its queue
        would only go out after the process is gone. So is an edit still waiting out its
        interval (a challenge card): the state is saved, and the next tap draws it; and a
        broadcast still waiting for its slot: it stays owed, for the next process to send.
        """
        now = self._clock()
        deadline = now + timeout
        for chat_id, queue in self._queues.items():
            for key in [key for key, item in queue.items() if item.due > now]:
                del queue[key]
            self._wake[chat_id].set()
        for chat_id, worker in list(self._workers.items()):
            if self._budgets.held_back(chat_id) > timeout:
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
