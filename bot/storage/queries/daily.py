"""The daily puzzle: one row per UTC day and board size, and each player's attempt at it.

The day's row is made by whoever asks first; the key (day, size) makes a second insert, from
any process, change nothing, so everyone reads back the same seed. An attempt is a game,
read and ranked as games.py reads and ranks them.
"""

from __future__ import annotations

import engine
from bot.models import Daily, StoredGame
from bot.storage.queries.base import Row, StorageBase
from bot.storage.queries.games import GAME_COLUMNS, _dump, game_from_row

_DAILY_COLUMNS = "id, day, size, seed, salt, commitment, ends_at"


def _daily_from_row(row: Row) -> Daily:
    return Daily(*row)


class DailyQueries(StorageBase):
    async def ensure_daily(self, candidate: Daily, now: float) -> Daily:
        """The day's puzzle of this size: `candidate` (its id ignored) if none was made yet,
        else the one made first, here or by another process."""
        await self._execute(
            "INSERT INTO dailies (day, size, seed, salt, commitment, created_at, ends_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (day, size) DO NOTHING",
            (
                candidate.day,
                candidate.size,
                candidate.seed,
                candidate.salt,
                candidate.commitment,
                now,
                candidate.ends_at,
            ),
        )
        daily = await self.daily_of(candidate.day, candidate.size)
        assert daily is not None
        return daily

    async def daily_of(self, day: str, size: int) -> Daily | None:
        row = await self._fetchrow(
            f"SELECT {_DAILY_COLUMNS} FROM dailies WHERE day = ? AND size = ?", (day, size)
        )
        return None if row is None else _daily_from_row(row)

    async def daily(self, daily_id: int) -> Daily | None:
        row = await self._fetchrow(
            f"SELECT {_DAILY_COLUMNS} FROM dailies WHERE id = ?", (daily_id,)
        )
        return None if row is None else _daily_from_row(row)

    async def daily_entry(self, daily_id: int, owner_id: int) -> StoredGame | None:
        """The player's attempt at the daily; inside a transaction, held until the commit."""
        await self._serialize(f"daily:{daily_id}:{owner_id}")
        row = await self._fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games WHERE daily_id = ? AND owner_id = ?"
            f"{self._for_update()}",
            (daily_id, owner_id),
        )
        return None if row is None else game_from_row(row)

    async def insert_daily_game(
        self, daily: Daily, owner_id: int, game: engine.Game, now: float
    ) -> int:
        """The player's attempt, in their private chat; it takes no move after the day."""
        return await self._insert(
            "INSERT INTO games (chat_id, owner_id, size, state, daily_id, closes_at, highest, "
            "score_at, created_at, updated_at, actions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')",
            (
                owner_id,
                owner_id,
                game.size,
                _dump(game),
                daily.id,
                daily.ends_at,
                game.highest,
                now,
                now,
                now,
            ),
        )
