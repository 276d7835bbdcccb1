"""Players: the name leaderboards show, and what each chose (language, board view).

A player who never chose anything has no row: `player` answers with the defaults, and each
choice or name inserts the row the first time.
"""

from __future__ import annotations

from bot.models import Player, View
from bot.storage.queries.base import StorageBase


class PlayerQueries(StorageBase):
    async def player(self, user_id: int) -> Player:
        row = await self._fetchrow(
            "SELECT name, language, view, telegram_language FROM players WHERE user_id = ?",
            (user_id,),
        )
        if row is None:
            return Player(user_id)
        return Player(user_id, row[0], row[1], View(row[2]), row[3])

    async def remember_name(
        self, user_id: int, name: str, telegram_language: str | None = None
    ) -> None:
        """Keep the name current, so leaderboards show a renamed player's new name, and the
        language Telegram last reported for them (None: not reported, keep the last one)."""
        await self._execute(
            "INSERT INTO players (user_id, name, telegram_language) VALUES (?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, "
            "telegram_language = coalesce(excluded.telegram_language, players.telegram_language) "
            "WHERE players.name != excluded.name OR coalesce(players.telegram_language, '') "
            "!= coalesce(excluded.telegram_language, players.telegram_language, '')",
            (user_id, name, telegram_language),
        )

    async def set_language(self, user_id: int, language: str) -> None:
        await self._execute(
            "INSERT INTO players (user_id, language) VALUES (?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET language = excluded.language",
            (user_id, language),
        )

    async def set_view(self, user_id: int, view: View) -> None:
        await self._execute(
            "INSERT INTO players (user_id, view) VALUES (?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET view = excluded.view",
            (user_id, view),
        )
