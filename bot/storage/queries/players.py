"""Players: the name leaderboards show, and what each chose (language, board view).

A player who never chose anything has no row: `player` answers with the defaults, and each
choice or name inserts the row the first time.
"""

from __future__ import annotations

from bot.models import Player, StoredGame, View
from bot.storage.queries.base import Row, StorageBase
from bot.storage.queries.games import GAME_COLUMNS, game_from_row

_PLAYER_COLUMNS = "name, language, view, telegram_language"
# A player who chose nothing has no row: every column of theirs NULL in a join.
_NO_ROW = (None, None, None, None)


class PlayerQueries(StorageBase):
    async def player(self, user_id: int) -> Player:
        row = await self._fetchrow(
            f"SELECT {_PLAYER_COLUMNS} FROM players WHERE user_id = ?", (user_id,)
        )
        return player_from_row(user_id, row or _NO_ROW)

    async def player_seen(
        self, user_id: int, group_id: int | None, game_id: int | None
    ) -> tuple[Player, str | None, StoredGame | None]:
        """In one statement: the player, the language group `group_id` chose (None: not a
        group, or none chosen), and game `game_id` (None: no such game, or none asked for).
        What an update's bookkeeping reads, with the game a tap on a board moves next."""
        games = ", ".join(f"g.{column}" for column in GAME_COLUMNS.split(", "))
        row = await self._fetchrow(
            f"SELECT p.name, p.language, p.view, p.telegram_language, "
            f"(SELECT language FROM chats WHERE chat_id = ?), {games} "
            "FROM (SELECT 1 AS one) AS one "
            "LEFT JOIN players AS p ON p.user_id = ? LEFT JOIN games AS g ON g.id = ?",
            (group_id, user_id, game_id),
        )
        assert row is not None
        game = None if row[5] is None else game_from_row(row[5:])
        return player_from_row(user_id, row[:4]), row[4], game

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


def player_from_row(user_id: int, row: Row) -> Player:
    name, language, view, telegram_language = row
    if name is None:  # no row: a player's name is never NULL
        return Player(user_id)
    return Player(user_id, name, language, View(view), telegram_language)
