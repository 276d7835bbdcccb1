"""The daily puzzle: one row per UTC day and board size, and each player's attempt at it.

The day's row is made by whoever asks first; the key (day, size) makes a second insert, from
any process, change nothing, so everyone reads back the same seed. An attempt is a game,
read and ranked as games.py reads and ranks them.
"""

from __future__ import annotations

import engine
from bot.models import Daily, Standing, StoredGame
from bot.storage.queries.base import Row, StorageBase
from bot.storage.queries.games import GAME_COLUMNS, _dump, game_from_row

_DAILY_COLUMNS = "id, day, size, seed, salt, commitment, ends_at"
# Best first: score, then fewer moves, then whoever reached the score first; then the id,
# so that no two players share a rank.
_RANKING = "score DESC, moves ASC, score_at ASC, owner_id ASC"
_RANKED = "daily_id = ? AND moves > 0"


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

    async def daily_top(self, daily_id: int, limit: int) -> list[Standing]:
        """The daily's best `limit` attempts, ranked."""
        rows = await self._fetchall(
            f"""SELECT owner_id, coalesce(players.name, ''), score, highest, moves
                FROM games LEFT JOIN players ON players.user_id = games.owner_id
                WHERE {_RANKED} ORDER BY {_RANKING} LIMIT ?""",
            (daily_id, limit),
        )
        return [Standing(rank, *row) for rank, row in enumerate(rows, 1)]

    async def daily_rank(self, daily_id: int, owner_id: int) -> tuple[int, int] | None:
        """The player's rank in the daily and how many are ranked; None if not ranked.

        Counted from the ranking's index: those with a higher score, then those with the same
        score ahead of the player on moves, the time and the id.
        """
        own = await self._fetchrow(
            f"SELECT score, moves, score_at FROM games WHERE {_RANKED} AND owner_id = ?",
            (daily_id, owner_id),
        )
        if own is None:
            return None
        score, moves, score_at = own
        row = await self._fetchrow(
            f"""SELECT
                (SELECT count(*) FROM games WHERE {_RANKED} AND score > ?),
                (SELECT count(*) FROM games WHERE {_RANKED} AND score = ? AND (moves < ?
                    OR (moves = ? AND (score_at < ? OR (score_at = ? AND owner_id < ?))))),
                (SELECT count(*) FROM games WHERE {_RANKED})""",
            (
                daily_id,
                score,
                daily_id,
                score,
                moves,
                moves,
                score_at,
                score_at,
                owner_id,
                daily_id,
            ),
        )
        assert row is not None
        return row[0] + row[1] + 1, row[2]

    async def dailies_to_place(self, ended_by: float) -> list[int]:
        """The dailies that ended by `ended_by` and whose places are not kept yet, oldest
        first (a few a day: the table holds one row per day and size)."""
        rows = await self._fetchall(
            "SELECT id FROM dailies WHERE players IS NULL AND ends_at <= ? ORDER BY id",
            (ended_by,),
        )
        return [row[0] for row in rows]

    async def keep_places(self, daily_id: int, limit: int) -> int:
        """Inside a transaction: keep the places of the ended daily's next `limit` attempts
        in the ranking (`_RANKING`), after the last place kept; how many were kept. The
        batch that finds fewer than `limit` left is the last: it counts the daily's ranked
        players, which marks the daily placed.

        Each batch starts where the last one ended, in the ranking's index: a day of any
        size costs the same per batch. A batch cut off is rolled back, and the next one
        finds the last place kept; two processes placing one daily at once take turns on
        it, batch by batch, each going on from the other's last place.
        """
        await self._serialize(f"daily-places:{daily_id}")
        last = await self._fetchrow(
            """SELECT daily_place, score, moves, score_at, owner_id FROM games
                WHERE daily_id = ? AND daily_place = (
                    SELECT max(daily_place) FROM games WHERE daily_id = ?)""",
            (daily_id, daily_id),
        )
        if last is None:
            placed, after, params = 0, "", ()
        else:
            placed, score, moves, score_at, owner_id = last
            # After the last one kept, in the ranking's order; `score <= ?` bounds the index.
            after = """AND score <= ? AND (score < ? OR (score = ? AND (moves > ? OR (moves = ?
                AND (score_at > ? OR (score_at = ? AND owner_id > ?))))))"""
            params = (score, score, score, moves, moves, score_at, score_at, owner_id)
        kept = await self._execute(
            f"""UPDATE games SET daily_place = batch.place
                FROM (SELECT id, ? + row_number() OVER (ORDER BY {_RANKING}) AS place
                    FROM (SELECT id, score, moves, score_at, owner_id FROM games
                        WHERE {_RANKED} {after} ORDER BY {_RANKING} LIMIT ?) AS next
                ) AS batch
                WHERE games.id = batch.id""",
            (placed, daily_id, *params, limit),
        )
        if kept < limit:
            await self._execute(
                f"""UPDATE dailies SET players = (SELECT count(*) FROM games WHERE {_RANKED})
                    WHERE id = ? AND players IS NULL""",
                (daily_id, daily_id),
            )
        return kept

    async def daily_group_standings(self, daily_id: int, chat_id: int) -> list[Standing]:
        """The daily's attempts of the group's players (those who ever played in the group),
        ranked among themselves.

        The group's players come first (CROSS JOIN keeps SQLite to that order), each looked
        up by the one-attempt index: a group's hundreds, never the day's hundred thousand.
        """
        rows = await self._fetchall(
            f"""WITH members AS (
                    SELECT owner_id FROM games WHERE chat_id = ?
                    UNION SELECT owner_id FROM games WHERE challenge_id IS NOT NULL
                        AND challenge_id IN (SELECT id FROM challenges WHERE chat_id = ?)
                )
                SELECT games.owner_id, coalesce(players.name, ''), score, highest, moves
                FROM members CROSS JOIN games
                LEFT JOIN players ON players.user_id = games.owner_id
                WHERE games.owner_id = members.owner_id AND games.{_RANKED}
                ORDER BY {_RANKING.replace("owner_id", "games.owner_id")}""",
            (chat_id, chat_id, daily_id),
        )
        return [Standing(rank, *row) for rank, row in enumerate(rows, 1)]
