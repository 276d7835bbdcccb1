"""Showing games off: what to share, the file ids of pictures already sent, and duels.

A duel ("beat my game") gives a friend a new game from the shared game's seed, so the same
tiles come for the same moves, and compares the two when the friend's game is over. The
shared game is judged as it stood when it was shared: its first `actions` actions, replayed.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from cachetools import TTLCache

import engine
from bot.codecs import duel_token, parse_duel_payload
from bot.models import ObligationKind, StoredGame
from bot.services.cache import recent_cache
from bot.services.games import GameService
from bot.services.locks import ChatLocks
from bot.services.outbox import Outbox
from bot.storage import Storage


def rival_state(rival: StoredGame, actions: int) -> engine.Game:
    """The shared game as it stood after its first `actions` actions (its clock aside)."""
    assert rival.actions is not None
    return engine.replay(rival.game.size, rival.game.seed, rival.actions[:actions])


class DuelStatus(StrEnum):
    STARTED = "started"
    OWN = "own"  # the player tapped the link to their own game
    INVALID = "invalid"
    # A challenge entry while its challenge runs: a duel would let a second account rehearse
    # the challenge's tiles, with hints and undos, before playing them for real.
    CHALLENGE_RUNNING = "challenge running"


@dataclass(frozen=True, slots=True)
class DuelStart:
    status: DuelStatus
    rival: StoredGame | None = None
    target: engine.Game | None = None  # what the friend has to beat
    entry: StoredGame | None = None


@dataclass(frozen=True, slots=True)
class DuelResult:
    rival: StoredGame
    target: engine.Game
    entry: StoredGame


class SharingService:
    def __init__(
        self,
        storage: Storage,
        locks: ChatLocks,
        games: GameService,
        clock: Callable[[], float] = time.time,
        outbox: Outbox | None = None,
    ) -> None:
        self.storage = storage
        self._locks = locks
        self._games = games
        self._clock = clock
        # What a duel races, per (shared game, actions): it never changes, and every redraw
        # of the duel's board shows it.
        self._targets: TTLCache[tuple[int, int], tuple[int, engine.Game] | None] = recent_cache()
        self._outbox = outbox or Outbox(storage, clock)

    async def subject(self, chat_id: int, user_id: int) -> StoredGame | None:
        """The game to share or replay here: the running one, else the latest one played here
        (in a group, its challenges' entries too), else the latest one played anywhere."""
        current = await self.storage.active_game(chat_id, user_id)
        if current is not None and current.game.moves > 0:
            return current
        return await self.storage.latest_game(chat_id, user_id) or current

    async def latest_anywhere(self, user_id: int) -> StoredGame | None:
        """For inline mode, which has no chat of the bot's: the private chat's game."""
        return await self.subject(user_id, user_id)

    async def best_games(self, user_id: int) -> dict[int, StoredGame]:
        return await self.storage.best_games(user_id)

    async def file_id(self, key: str) -> str | None:
        return await self.storage.shared_file(key)

    async def remember_file(self, chat_id: int, key: str, file_id: str) -> None:
        async with self._locks.writing(chat_id) as storage:
            await storage.remember_file(key, file_id, self._clock())

    async def in_running_challenge(self, stored: StoredGame) -> bool:
        """Whether the game is a challenge entry whose challenge has not ended yet, or an
        attempt at a daily whose day has not.

        Its seed is the challenge's or the day's: shared as a duel, anyone could practise the
        exact tiles.
        """
        if stored.daily_id is not None:
            return stored.closes_at is None or self._clock() < stored.closes_at
        if stored.challenge_id is None:
            return False
        challenge = await self.storage.challenge(stored.challenge_id)
        return challenge is not None and not challenge.finished

    async def start_duel(self, text: str, user_id: int) -> DuelStart:
        parsed = parse_duel_payload(text)
        if parsed is None:
            return DuelStart(DuelStatus.INVALID)
        game_id, actions, token = parsed
        rival = await self.storage.game(game_id)
        if (
            rival is None
            or rival.actions is None
            or actions > len(rival.actions)
            or not secrets.compare_digest(token, duel_token(rival.id, rival.game.seed, actions))
        ):
            return DuelStart(DuelStatus.INVALID)
        if await self.in_running_challenge(rival):
            return DuelStart(DuelStatus.CHALLENGE_RUNNING)
        target = rival_state(rival, actions)
        if rival.owner_id == user_id:
            return DuelStart(DuelStatus.OWN, rival, target)
        entry = await self._games.start_duel(user_id, rival, actions)
        return DuelStart(DuelStatus.STARTED, rival, target, entry)

    async def duel_target(self, entry: StoredGame) -> tuple[int, engine.Game] | None:
        """Who a duel's game races and their game as it stood when shared; None if no duel."""
        if entry.duel_of is None or entry.duel_actions is None:
            return None
        key = (entry.duel_of, entry.duel_actions)
        if key not in self._targets:
            rival = await self.storage.game(entry.duel_of)
            target = None
            if rival is not None and rival.actions is not None:
                target = (rival.owner_id, rival_state(rival, entry.duel_actions))
            self._targets[key] = target
        return self._targets[key]

    async def finish_duel(self, entry: StoredGame) -> bool:
        """Once a duel's game is over, owe both players the comparison; False if not over,
        or owed already (the result is told once)."""
        if entry.duel_of is None or entry.duel_actions is None or not entry.game.over:
            return False
        async with self._locks.writing(entry.chat_id) as storage:
            rival = await storage.game(entry.duel_of)
            if rival is None or rival.actions is None or not await storage.report_duel(entry.id):
                return False
            for reader in (entry.owner_id, rival.owner_id):
                await self._outbox.owe(storage, ObligationKind.DUEL_RESULT, reader, entry.id)
        return True

    async def duel_result(self, entry_id: int) -> DuelResult | None:
        """The comparison of a duel's game with the game it duels, as both stand now."""
        entry = await self.storage.game(entry_id)
        if entry is None or entry.duel_of is None or entry.duel_actions is None:
            return None
        rival = await self.storage.game(entry.duel_of)
        if rival is None or rival.actions is None:
            return None
        return DuelResult(rival, rival_state(rival, entry.duel_actions), entry)
