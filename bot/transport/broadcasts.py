"""The broadcast budget: what the bot sends on its own, paced as one under Telegram's bot-wide
limit.

Beside each chat's pace (bot/transport/budgets.py), Telegram takes about 30 messages a second
from a bot across all its chats; past that it answers 429, and the chat it refused is frozen
for the whole `retry_after`. Answers to a player (replies, board edits) come as fast as
players tap and must not be slowed, so they have no such cap. What the bot sends on its own,
the outbox's announcements (bot/services/outbox.py: the daily's reminders, the groups' daily
cards, final rankings and winners, challenges' ends, duels' results), can wait a little, and
at midnight there are thousands of them at once. (A challenge's card answers its /challenge:
a reply, sent first and outside this budget.) So every one of them takes a
slot of this one budget before it is queued in its chat: `BROADCASTS_PER_SECOND` a second
after a burst of `BROADCAST_BURST`, at most 25 in any second, which leaves Telegram's other
five or more to the replies and edits played meanwhile.

A bot runs one process (the slots are this process's) or several on one PostgreSQL database,
whose broadcasts must add up to one budget: then each slot is reserved in the database, in
the `chat_pace` row of `BROADCASTS` (no chat has id 0), with the statement that reserves a
chat's next send. Processes reserving at once queue on that row and each gets a time of its
own, so nothing takes turns and nothing is refused: a broadcast whose slot is a second away
waits a second. A process reserves no more than `AHEAD` seconds of slots (what it holds
beyond waits, owed, for its next look), so one that dies leaves at most that much of the
budget unspent. Should the database be away, the process falls back to slots of its own.

A slot says when a broadcast may go, not that it goes then: a process held up (a long
garbage collection, a starved CPU) wakes with every slot of that pause passed, and a sender
reads the database between its slot and its request, so reads held up together end
together. Either way the broadcasts would reach Telegram at once, past its bot-wide burst.
So every request a broadcast makes (`broadcasting` marks them) also takes a slot of this
process's own, the same pace, right before it goes on the wire (`on_the_wire`, called by the
rate limiter, bot/transport/ratelimit.py): after a pause, a burst goes at once and the rest
keep the pace.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from bot.storage import StorageUnavailable
from bot.transport.budgets import SharedBudgets

BROADCASTS_PER_SECOND = 20.0
BROADCAST_BURST = 5.0
# The outbox looks every 2 s (Config.outbox_interval): slots three seconds ahead keep the
# budget busy from one look to the next, whatever the job queue's jitter.
AHEAD = 3.0
BROADCASTS = 0  # the `chat_pace` row of the bot-wide budget: Telegram gives no chat id 0
# The pace of the broadcasts' row is never slowed (no 429 is recorded against it); the
# statement that reserves asks how fast it would recover all the same.
_RECOVERY = 1.0
# Whether the running task sends a broadcast: its requests take this process's wire slots.
_BROADCASTING: ContextVar[bool] = ContextVar("broadcasting", default=False)


@contextlib.contextmanager
def broadcasting() -> Iterator[None]:
    """The requests made inside are a broadcast's: each waits for its wire slot."""
    token = _BROADCASTING.set(True)
    try:
        yield
    finally:
        _BROADCASTING.reset(token)


class _Slots:
    """This process's slots: the next one is due `interval` after the last, and a send may
    go a burst's worth ahead of its slot (the rule the database's reservation follows)."""

    def __init__(self, per_second: float, burst: float, clock: Callable[[], float]) -> None:
        self._interval = 1 / per_second
        self._slack = (burst - 1) * self._interval
        self._clock = clock
        self._due = -math.inf

    def reserve(self) -> float:
        now = self._clock()
        due = max(self._due, now)
        self._due = due + self._interval
        return max(0.0, due - self._slack - now)


class BroadcastBudget:
    """The one budget every broadcast of the bot spends, in this process or the database."""

    def __init__(
        self,
        shared: SharedBudgets | None,
        clock: Callable[[], float] = time.monotonic,
        per_second: float = BROADCASTS_PER_SECOND,
        burst: float = BROADCAST_BURST,
    ) -> None:
        self._shared = shared
        self._interval = 1 / per_second
        self._burst = burst
        self._local = _Slots(per_second, burst, clock)
        self._wire = _Slots(per_second, burst, clock)

    async def reserve(self) -> float:
        """Spend the next broadcast's slot: seconds from now until it may go (0: at once)."""
        if self._shared is None:
            return self._local.reserve()
        try:
            wait, _ = await self._shared.reserve_send(
                BROADCASTS, self._interval, self._burst, _RECOVERY
            )
        except StorageUnavailable:
            return self._local.reserve()
        return max(0.0, wait)

    async def on_the_wire(self) -> None:
        """For a broadcast's request (`broadcasting`), wait if need be until this process's
        next one may reach Telegram: right before it is sent, so that slots passed during a
        pause or a slow read are not spent all at once. Any other request goes at once."""
        if not _BROADCASTING.get():
            return
        wait = self._wire.reserve()
        if wait > 0:
            await asyncio.sleep(wait)
