"""The daily's reminder: one message a day, when the next daily opens, to who asked for it.

A player switches it on with `/daily remind` and gets one reminder at each midnight (UTC)
from then on, none for the daily already open. The reminders are announcements owed through
the outbox (bot/services/outbox.py): a batch of players is picked, their day moved on and
their reminders owed in one transaction, so that every player is owed one reminder a day
however many processes pick at once, and the outbox sends it, after a restart or an outage
too. A look that finds players still owed the day's reminder picks them, whenever it comes:
a bot that was down at midnight catches up once it runs, but never for a day already over
(a reminder owed for a day that has ended is dropped unsent).

Thousands of players are reminded at the same moment, into as many private chats: each chat
takes one message, well inside its own pace, but Telegram also limits what a bot sends in
all (about 30 a second). Their sends spend the bot's one broadcast budget, as every
announcement from the outbox does (bot/transport/broadcasts.py), beside the groups' daily
cards at the same midnight. They are owed in batches that take turns, one process at a time
among all that share the database, `PER_TURN` reminders a turn of `TURN_SECONDS`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.models import Obligation, ObligationKind
from bot.services.daily import day_of
from bot.services.locks import ChatLocks
from bot.services.outbox import Outbox
from bot.storage import Storage

# Fifteen reminders owed a turn of a second, across all processes: a little below what the
# broadcast budget sends (20 a second), so the outbox does not fill with a whole day's
# reminders that every announcement owed after them would wait behind.
PER_TURN = 15
TURN_SECONDS = 1.0
# A turn is held a little less than its length: the next look of the process that held it,
# a turn later give or take the job queue's jitter, finds it free.
TURN_HELD = 0.9 * TURN_SECONDS


def day_number(day: str) -> int:
    """A day as the outbox keeps what a reminder is about: 2026-12-02 is 20261202."""
    return int(day.replace("-", ""))


class ReminderService:
    def __init__(
        self,
        storage: Storage,
        locks: ChatLocks,
        outbox: Outbox,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.storage = storage
        self._locks = locks
        self._outbox = outbox
        self._clock = clock
        # The day whose reminders were all owed when this process last looked: none becomes
        # due again that day (a player who switches on is reminded from the next), so the
        # looks stop until midnight.
        self._all_owed: str | None = None

    async def switch_on(self, user_id: int) -> float:
        """Remind the player when each next daily opens; the seconds until the first does."""
        now = self._clock()
        day, ends_at = day_of(now)
        async with self._locks.writing(user_id) as storage:
            await storage.switch_reminder_on(user_id, day)
        return ends_at - now

    async def switch_off(self, user_id: int) -> bool:
        """No more reminders; whether the player had them on."""
        async with self._locks.writing(user_id) as storage:
            return await storage.switch_reminder_off(user_id)

    async def owe_due(self) -> list[Obligation]:
        """This turn's batch of today's reminders, owed and held by this process to send;
        none if no player is owed one or another process has the turn."""
        now = self._clock()
        day, _ = day_of(now)
        if day == self._all_owed:
            return []
        if not await self.storage.reminders_due(day):
            self._all_owed = day
            return []
        async with self.storage.transaction():
            if not await self.storage.take_reminder_turn(now, now + TURN_HELD):
                return []
            players = await self.storage.mark_reminded(day, PER_TURN)
            return [
                await self._outbox.owe(
                    self.storage, ObligationKind.DAILY_REMINDER, user_id, day_number(day)
                )
                for user_id in players
            ]

    async def due_day(self, obligation: Obligation) -> str | None:
        """The day an owed reminder is of, if it should still go: that day is today, and the
        player has not switched reminders off since it was owed. None: it is dropped."""
        today, _ = day_of(self._clock())
        if obligation.subject_id != day_number(today):
            return None
        return today if await self.storage.reminded_day(obligation.chat_id) else None
