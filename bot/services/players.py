"""Players and group chats: names for leaderboards, chosen languages and board views."""

from __future__ import annotations

import time
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from cachetools import TTLCache

from bot.models import Challenge, Player, StoredGame, View
from bot.services.cache import CacheFactory, recent_cache
from bot.services.locks import ChatLocks
from bot.services.redelivery import claim, record
from bot.storage import Storage


class TapLedger(Protocol):
    """Where every process of the bot spends a player's taps and messages (the shared
    database)."""

    async def spend_tap(
        self,
        user_id: int,
        rate: float,
        burst: float,
        group_id: int | None,
        game_id: int | None,
        buckets: Sequence[tuple[str, int, float, float]] = (),
    ) -> tuple[Player, str | None, StoredGame | None, bool] | None:
        """Spend one of the player's taps and read what a tap's bookkeeping reads (the player,
        group `group_id`'s language, game `game_id`), with the throttle `buckets` the tap
        spends beside it and whether each had its token; None, and nothing read or spent,
        when no tap is left."""

    async def spend_message(
        self, user_id: int, group_id: int | None, buckets: Sequence[tuple[str, int, float, float]]
    ) -> tuple[Player, str | None] | None:
        """Spend a token of each throttle bucket (name, key, rate, burst) and read the player
        and group `group_id`'s language; None when a bucket had none left."""


@dataclass(frozen=True, slots=True)
class TapBudget:
    """A player's taps, `burst` at once and `rate` a second, counted in `ledger` for every
    process alike: their chat buttons and their Mini App calls spend the same taps."""

    ledger: TapLedger
    rate: float
    burst: float


@dataclass(frozen=True, slots=True)
class Seen:
    """What an update's bookkeeping reads: the sender, their group's chosen language, and,
    read in the same statement, the game their tap is on (with the chat's write number
    before the read: `ChatLocks.generation`)."""

    player: Player
    group_language: str | None
    game: StoredGame | None = None
    generation: int = 0
    # Whether the throttles a tap spent beside its own budget each had a token (`spend_tap`).
    throttled_in: bool = True


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

    async def spend_tap(
        self,
        chat_id: int,
        user_id: int,
        *,
        in_group: bool = False,
        game_id: int | None = None,
        also: Sequence[tuple[str, int, float, float]] = (),
    ) -> Seen | None:
        """One of the player's taps spent, and what the tap's bookkeeping reads (`seen`);
        None when they have none left.

        The statement that reads for the tap spends the budget, so sharing it across
        processes costs a tap no round trip of its own; so do the throttle buckets `also`
        (a hint's, name, key, rate and burst, as every process shares them), spent with
        the tap: `Seen.throttled_in` says whether each had its token.
        """
        if self._taps is None:
            assert not also, "only a shared database keeps the buckets"
            return await self.seen(chat_id, user_id, in_group=in_group, game_id=game_id)
        taps = self._taps
        generation = self._locks.generation(chat_id)
        read = await taps.ledger.spend_tap(
            user_id, taps.rate, taps.burst, chat_id if in_group else None, game_id, also
        )
        if read is None:
            return None
        player, language, game, throttled_in = read
        return Seen(player, language, game, generation, throttled_in)

    async def spend_message(
        self,
        chat_id: int,
        user_id: int,
        buckets: Sequence[tuple[str, int, float, float]],
        *,
        in_group: bool,
    ) -> Seen | None:
        """The message's throttle buckets every process shares spent, and what its
        bookkeeping reads (`seen`), in one statement; None when one had none left."""
        assert self._taps is not None, "only a shared database keeps the buckets"
        read = await self._taps.ledger.spend_message(
            user_id, chat_id if in_group else None, buckets
        )
        if read is None:
            return None
        return Seen(*read)

    async def seen(
        self, chat_id: int, user_id: int, *, in_group: bool, game_id: int | None = None
    ) -> Seen:
        """The sender of an update in `chat_id` and, in a group, its chosen language.

        `game_id`: the game the update taps on. When the player is not known here (with other
        processes on the database, never), the game is read in the same statement as the
        player, for the tap's move to start from (`GameService.read_ahead`): a round trip
        fewer per tap.
        """
        known = self._players.get(user_id)
        if known is not None:
            return Seen(known, await self.chat_language(chat_id) if in_group else None)
        generation = self._locks.generation(chat_id)
        player, language, game = await self.storage.player_seen(
            user_id, chat_id if in_group else None, game_id
        )
        self._players[user_id] = player
        return Seen(player, language, game, generation)

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
