"""The daily in groups: opted in by the group's admins, one card a day, closed once.

A group that opts in (`switch`) gets the card of today's 4×4 daily at once, and each later
day's when the day starts; when a day ends, its card is closed for the group, and its final
ranking and winner are owed. Every one of those is an obligation written in the transaction
that made it owed (bot/services/outbox.py), and made by an insert or an update that only one
call can make change a row, so however many processes look (`turn_days`, from each
process's catch-up every few seconds) a group gets one card a day and one final announcement,
and a restart or an outage across midnight is caught up on the next look.
"""

from __future__ import annotations

from enum import StrEnum

import engine
from bot.models import GroupDaily, ObligationKind
from bot.services.daily import DailyService, day_of
from bot.services.locks import ChatLocks
from bot.services.outbox import Outbox
from bot.services.redelivery import claim, record
from bot.storage import Storage

CARD_SIZE = engine.SIZES[0]  # a group's card is the daily everyone starts with: 4×4


class Switch(StrEnum):
    """What `/daily on` or `/daily off` did."""

    ON = "on"  # switched on now: today's card is owed
    OFF = "off"  # switched off now: no more cards
    ALREADY_ON = "already_on"
    ALREADY_OFF = "already_off"


class GroupDailyService:
    def __init__(
        self, storage: Storage, locks: ChatLocks, daily: DailyService, outbox: Outbox
    ) -> None:
        self.storage = storage
        self._locks = locks
        self._daily = daily  # its clock says which day it is
        self._outbox = outbox

    async def switch(
        self, chat_id: int, on: bool, language: str, update_key: str | None = None
    ) -> Switch:
        """Opt the group in or out, as asked by an admin who reads `language`. Switched on,
        it is owed today's card at once (a new one, below what was said since, should today
        have had a card before it was switched off).

        A repeated delivery of the same command gets the first one's answer, and owes nothing.
        """
        now = self._daily.now()
        async with self._locks.writing(chat_id) as storage:
            first = await claim(storage, update_key, now)
            if first is not None:
                return Switch(first.outcome)
            await storage.hold_chat(chat_id)  # other processes' switches and looks wait
            if await storage.daily_on(chat_id) == on:
                status = Switch.ALREADY_ON if on else Switch.ALREADY_OFF
            else:
                await storage.set_daily_on(chat_id, on, language)
                status = Switch.ON if on else Switch.OFF
                if on:
                    daily = await self._daily.ensure(storage, CARD_SIZE, now)
                    await storage.open_group_daily(chat_id, daily.id)
                    await self._outbox.owe(storage, ObligationKind.DAILY_CARD, chat_id, daily.id)
            await record(storage, update_key, status)
            return status

    async def removed(self, chat_id: int) -> None:
        """The bot can no longer post in the group (removed, say): its daily goes off, and
        an admin who adds the bot back switches it on again."""
        async with self._locks.writing(chat_id) as storage:
            await storage.set_daily_on(chat_id, False, None)

    async def turn_days(self) -> int:
        """Close every group's card whose daily has ended, then owe today's card to every
        opted-in group without one; how many cards this call closed or opened.

        Cheap when there is nothing to do (two indexed reads), as it runs every few seconds.
        """
        now = self._daily.now()
        changed = 0
        for card in await self.storage.group_dailies_ended(now):
            changed += await self.close(card)
        day, _ = day_of(now)
        for chat_id in await self.storage.groups_without_card(day, CARD_SIZE):
            changed += await self._open_today(chat_id, now)
        return changed

    async def _open_today(self, chat_id: int, now: float) -> bool:
        async with self._locks.writing(chat_id) as storage:
            await storage.hold_chat(chat_id)
            if not await storage.daily_on(chat_id):  # switched off since the look
                return False
            daily = await self._daily.ensure(storage, CARD_SIZE, now)
            if not await storage.open_group_daily(chat_id, daily.id):
                return False  # another process made it first, and owes it
            await self._outbox.owe(storage, ObligationKind.DAILY_CARD, chat_id, daily.id)
            return True

    async def close(self, card: GroupDaily) -> bool:
        """Close the day for the group, once; its final card and winner are owed from the
        same commit if the group still has the daily on. False if closed already."""
        async with self._locks.writing(card.chat_id) as storage:
            if not await storage.finish_group_daily(card.chat_id, card.daily_id):
                return False
            if await storage.daily_on(card.chat_id):
                for kind in (ObligationKind.DAILY_FINAL_CARD, ObligationKind.DAILY_WINNER):
                    await self._outbox.owe(storage, kind, card.chat_id, card.daily_id)
            return True

    async def set_card(self, chat_id: int, daily_id: int, message_id: int) -> None:
        """Remember the group message that shows the day's card, to edit it later."""
        async with self._locks.writing(chat_id) as storage:
            await storage.set_group_daily_message(chat_id, daily_id, message_id)
