"""The daily puzzle: one game a UTC day per board size, the same tiles for everyone.

The day's seed is drawn once, by the first player to ask, and kept secret until the day
ends; what is published meanwhile is its commitment (engine/commitment.py), so that anyone
can check afterwards that the seed was fixed before the first move. Each player gets one
attempt per size and day, a game of its own beside their running one, which takes moves
until midnight UTC and then counts as it stands.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

import engine
from bot.codecs import parse_daily_payload
from bot.models import Daily, StoredGame
from bot.services.locks import ChatLocks
from bot.storage import Storage

DAY_SECONDS = 86_400
# A daily's places are kept this long after its day ends: a move checked against the day's
# end just before midnight, in any process, has committed by then, so the kept ranking is
# the final one. Until they are kept, /stats counts them from the ranking as it stands.
PLACES_SETTLE = 60.0
# Places kept by one statement: a day of any size is placed in batches that each stay far
# inside the database's statement timeout (5 s) and commit on their own, so a day of a
# million players is placed over a few of the job's runs rather than never.
PLACES_PER_BATCH = 5_000


class DailyStatus(StrEnum):
    STARTED = "started"  # the player's attempt begins now
    RESUMED = "resumed"  # their attempt goes on where they left it
    FINISHED = "finished"  # their attempt is over (no move left): the result stands
    OLD = "old"  # a link to a day gone by: its result, if the player played it
    INVALID = "invalid"  # no such daily link


@dataclass(frozen=True, slots=True)
class DailyPlay:
    status: DailyStatus
    daily: Daily | None = None
    entry: StoredGame | None = None


def day_of(now: float) -> tuple[str, float]:
    """The UTC date `now` falls on (YYYY-MM-DD) and the moment that day ends."""
    start = datetime.fromtimestamp(now - now % DAY_SECONDS, UTC)
    return start.date().isoformat(), (start + timedelta(days=1)).timestamp()


def _new_seed() -> int:
    return secrets.randbits(63)  # a signed 64-bit column on both databases


def _new_salt() -> str:
    return secrets.token_hex(engine.SALT_HEX_DIGITS // 2)


class DailyService:
    def __init__(
        self,
        storage: Storage,
        locks: ChatLocks,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] = _new_seed,
        new_salt: Callable[[], str] = _new_salt,
    ) -> None:
        self.storage = storage
        self._locks = locks
        self._clock = clock
        self._new_seed = new_seed
        self._new_salt = new_salt
        # The UTC day, PLACES_SETTLE seconds ago, when this process last kept the places of
        # every daily over by then: none ends again before the next midnight.
        self._placed: str | None = None

    def now(self) -> float:
        return self._clock()

    def over(self, daily: Daily) -> bool:
        """Whether the daily's day has ended: no more moves, and its seed may be shown."""
        return self._clock() >= daily.ends_at

    async def ensure(self, storage: Storage, size: int, now: float) -> Daily:
        """Inside the caller's transaction: the daily of this size for the day `now` falls on,
        its seed drawn now if nobody has asked for it yet."""
        day, ends_at = day_of(now)
        seed, salt = self._new_seed(), self._new_salt()
        candidate = Daily(
            0, day, size, seed, salt, engine.commitment(salt, seed, size, day), ends_at
        )
        return await storage.ensure_daily(candidate, now)

    async def keep_places(self) -> int:
        """Keep each player's place in every daily whose day is over, each daily in one
        transaction; how many places this call kept.

        Its work comes once a day, a minute after midnight, and at a process's first call,
        which also fills the days over before places were kept, or while the bot was away;
        the look between costs no statement. Each daily is placed `PLACES_PER_BATCH` places
        a transaction: a call cut off keeps the batches it committed, and the next one goes
        on from there; a daily another process placed is skipped.
        """
        settled = self._clock() - PLACES_SETTLE
        day, _ = day_of(settled)
        if day == self._placed:
            return 0
        kept = 0
        for daily_id in await self.storage.dailies_to_place(settled):
            batch = PLACES_PER_BATCH
            while batch == PLACES_PER_BATCH:
                async with self.storage.transaction():
                    batch = await self.storage.keep_places(daily_id, PLACES_PER_BATCH)
                kept += batch
        self._placed = day
        return kept

    async def play(self, user_id: int, size: int) -> DailyPlay:
        """Today's daily of this size for the player: begun now, or as they left it.

        The attempt is played in the player's private chat, whose id is theirs.
        """
        now = self._clock()
        async with self._locks.writing(user_id) as storage:
            daily = await self.ensure(storage, size, now)
            entry = await storage.daily_entry(daily.id, user_id)
            if entry is not None:
                status = DailyStatus.FINISHED if entry.game.over else DailyStatus.RESUMED
                return DailyPlay(status, daily, entry)
            game = engine.new_game(size, daily.seed, now)
            entry = await storage.game(await storage.insert_daily_game(daily, user_id, game, now))
            return DailyPlay(DailyStatus.STARTED, daily, entry)

    async def open_link(self, text: str, user_id: int) -> DailyPlay:
        """A daily's deep link: today's is played; an older one shows how that day went."""
        parsed = parse_daily_payload(text)
        today, _ = day_of(self._clock())
        if parsed is None or parsed[0] > today:
            return DailyPlay(DailyStatus.INVALID)
        day, size = parsed
        if day == today:
            return await self.play(user_id, size)
        daily = await self.storage.daily_of(day, size)
        entry = None if daily is None else await self.storage.daily_entry(daily.id, user_id)
        return DailyPlay(DailyStatus.OLD, daily, entry)
