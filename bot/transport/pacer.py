"""One pace for everything the bot sends into a chat, inside Telegram's flood limits.

The Pacer is the one object the bot sends through: handlers hand it posts and edits, and the
rate limiter (bot/transport/ratelimit.py) has it pace every request and hears from it of
every 429. It joins two parts, each with a docstring of its own:

- the chats' budgets (bot/transport/budgets.py): when a chat may send next, its burst and
  pace, the flood wait and the slower pace after a 429;
- the chats' queues (bot/transport/queues.py): each chat's posts in order, its edits
  coalesced per message, each job run on its chat's turn to send.

Whose budgets they are is chosen once, when the Pacer is made: this process's own, or, for
several processes of one bot on one PostgreSQL database, the database's (`shared`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable

from bot.config import Pace
from bot.models import SendAsk
from bot.transport.budgets import ChatBudgets, DatabaseBudgets, LocalBudgets, SharedBudgets
from bot.transport.queues import ChatQueues, Job


class Pacer:
    def __init__(
        self,
        pace: Pace | None,
        clock: Callable[[], float] = time.monotonic,
        *,
        shared: SharedBudgets | None = None,
    ) -> None:
        """`shared`: every chat's budget in the database, one for all the bot's processes.

        `pace=None` paces nothing (flood waits still hold a chat back): for benchmarks. With
        no pace there is no budget to share, and each process keeps its flood waits.
        """
        self._budgets: ChatBudgets = (
            LocalBudgets(pace, clock)
            if shared is None or pace is None
            else DatabaseBudgets(shared, pace, clock)
        )
        self._queues = ChatQueues(self._budgets, clock)

    def post(
        self, chat_id: int, job: Job, *, latest_of: Hashable | None = None, after: float = 0.0
    ) -> None:
        """Send something new into the chat, after what was queued before it (or in the place
        of a waiting post of the same `latest_of`), not before `after` seconds from now:
        ChatQueues.post."""
        self._queues.post(chat_id, job, latest_of=latest_of, after=after)

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
        """Edit `message_id` soon, with what `draw` reads when it runs; a later request for it
        replaces one still waiting (`replace`, `every`, `reserved`: ChatQueues.edit)."""
        self._queues.edit(
            chat_id, message_id, draw, replace=replace, every=every, reserved=reserved
        )

    def send_ask(self, chat_id: int) -> SendAsk | None:
        """What a move about to be saved in the chat reserves its redraw's send with, in the
        same statement (the database's budgets only); None when the redraw's turn will, or a
        queued job may take its place."""
        return None if self.busy(chat_id) else self._budgets.ask(chat_id)

    def busy(self, chat_id: int) -> bool:
        """Whether the chat has something queued or being sent (ChatQueues.busy)."""
        return self._queues.busy(chat_id)

    async def take(self, chat_id: int) -> None:
        """Wait until the chat may send, and spend its send: the rate limiter, per request."""
        await self._budgets.take(chat_id)

    def held_back(self, chat_id: int) -> float:
        """Seconds left of a flood wait Telegram imposed on the chat (0: none)."""
        return self._budgets.held_back(chat_id)

    def flood_wait(self, chat_id: int, seconds: float) -> None:
        """Telegram answered 429: hold the chat back `seconds`, then slow it for a while."""
        self._budgets.flood_wait(chat_id, seconds)

    def pace_factor(self, chat_id: int) -> float:
        """The share of its normal pace the chat goes at now: 1, or less after a 429."""
        return self._budgets.pace_factor(chat_id)

    @staticmethod
    def in_job() -> bool:
        """Whether the caller runs inside a queued job (whose 429s the queue handles)."""
        return ChatQueues.in_job()

    def backlog(self) -> tuple[int, float]:
        """What waits in the queues now: how many items, and the oldest one's seconds."""
        return self._queues.backlog()

    def flood_waits(self) -> int:
        """Chats held back by a flood wait now."""
        return self._budgets.flood_waits()

    async def drain(self, timeout: float) -> None:
        """At shutdown: send what is queued, but give up after `timeout` seconds, and at once
        on what would only go out later than that (ChatQueues.drain)."""
        await self._queues.drain(timeout)
