"""Players and group chats: names for leaderboards, chosen languages and board views."""

from __future__ import annotations

import time
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Protocol

from cachetools import TTLCache

from bot.models import Challenge, Player, View
from bot.services.cache import CacheFactory, recent_cache
from bot.services.locks import ChatLocks
from bot.services.redelivery import claim, record
from bot.storage import Storage


class TapLedger(Protocol):
    """Where every process of the bot spends a player's taps (the shared database)."""

    async def spend_tap(self, user_id: int, rate: float, burst: float) -> Player | None:
        """Spend one of the player's taps and read the player; None when none is left."""


@dataclass(frozen=True, slots=True)
class TapBudget:
    """A player's taps, `burst` at once and `rate` a second, counted in `ledger` for every
    process alike: their chat buttons and their Mini App calls spend the same taps."""

    ledger: TapLedger
    rate: float
    burst: float


class PlayerService:
    def __init__(
        self,
        storage: Storage,
        locks: ChatLocks,
        copies: CacheFactory = recent_cache,
        taps: TapBudget | None = None,
    ) -> None:
        """`taps`: the budget every process shares; None for a process alone on its
        database, whose own throttle is the whole budget (`spend_tap` then only reads)."""
        self.storage = storage
        self._locks = locks
        self._taps = taps
        # Names (and Telegram languages) already saved, so an unchanged one costs no database
        # write per update; only a cache: forgetting a player costs them one write.
        self._known_names: TTLCache[int, tuple[str, str | None]] = recent_cache()
        # Players as last read, so the update after a tap needs no read. Every change to a
        # player goes through this service, which forgets its copy; `copies` keeps none when
        # other processes write to the database too.
        self._players: MutableMapping[int, Player] = copies()

    async def player(self, user_id: int) -> Player:
        known = self._players.get(user_id)
        if known is not None:
            return known
        player = await self.storage.player(user_id)
        self._players[user_id] = player
        return player

    async def spend_tap(self, user_id: int) -> Player | None:
        """The player, read with one of their taps spent; None when they have none left.

        The read a tap makes anyway spends the budget, so sharing it across processes costs
        a tap no round trip of its own.
        """
        if self._taps is None:
            return await self.player(user_id)
        taps = self._taps
        return await taps.ledger.spend_tap(user_id, taps.rate, taps.burst)

    async def chat_language(self, chat_id: int) -> str | None:
        return await self.storage.chat_language(chat_id)

    async def remember_name(
        self, chat_id: int, user_id: int, name: str, telegram_language: str | None = None
    ) -> bool:
        """Keep the name current, so leaderboards show a renamed player's new name, and the
        language of their Telegram app, for what the bot sends them outside an update.

        Whether it was saved: a copy of the player read before then may be out of date."""
        if self._known_names.get(user_id) == (name, telegram_language):
            return False
        async with self._locks.writing(chat_id) as storage:
            await storage.remember_name(user_id, name, telegram_language)
        self._known_names[user_id] = (name, telegram_language)
        self._players.pop(user_id, None)
        return True

    async def set_language(self, chat_id: int, user_id: int, language: str) -> None:
        async with self._locks.writing(chat_id) as storage:
            await storage.set_language(user_id, language)
        self._players.pop(user_id, None)

    async def set_view(
        self, chat_id: int, user_id: int, view: View, update_key: str | None = None
    ) -> View:
        """Set the player's board view; the view in effect after (a repeat keeps the first)."""
        async with self._locks.writing(chat_id) as storage:
            first = await claim(storage, update_key, time.time())
            if first is not None:
                return View(first.outcome)
            await storage.set_view(user_id, view)
            await record(storage, update_key, view)
        self._players.pop(user_id, None)
        return view

    async def set_chat_language(self, chat_id: int, language: str) -> None:
        async with self._locks.writing(chat_id) as storage:
            await storage.set_chat_language(chat_id, language)

    async def move_group(self, old: int, new: int) -> list[Challenge]:
        """A basic group became supergroup `new`: its games, challenges and language follow.

        One transaction under both chats' locks; the open challenges moved are returned, so
        their cards can be posted again in the new chat. A second call moves nothing.
        """
        async with self._locks.writing(old, new) as storage:
            return await storage.move_chat(old, new)
