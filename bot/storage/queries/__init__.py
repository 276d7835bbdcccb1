"""The storage interface and every query in it, written once for both backends.

The backend's primitives, and the schema's migration over them, are base.py's; the queries
below are written with them and nothing else.
"""

from __future__ import annotations

import json

import engine
from bot.models import Challenge, Standing, StoredGame
from bot.storage.queries.base import Row
from bot.storage.queries.outbox import OutboxQueries
from bot.storage.queries.players import PlayerQueries
from bot.storage.queries.records import RecordQueries
from bot.storage.queries.redelivery import RedeliveryQueries

_GAME_COLUMNS = (
    "id, chat_id, owner_id, state, active, message_id, played_counted, challenge_id, closes_at, "
    "hints, hint, actions, duel_of, duel_actions, duel_reported"
)
_CHALLENGE_COLUMNS = (
    "id, chat_id, chat_title, language, creator_id, size, seed, token, ends_at, message_id, "
    "finished"
)
# Best first: score, then highest tile, then fewer moves, then whoever got there first.
_RANKING = "score DESC, highest DESC, moves ASC, score_at ASC"


def _game_from_row(row: Row) -> StoredGame:
    return StoredGame(
        id=row[0],
        chat_id=row[1],
        owner_id=row[2],
        game=engine.from_dict(json.loads(row[3])),
        active=bool(row[4]),
        message_id=row[5],
        played_counted=bool(row[6]),
        challenge_id=row[7],
        closes_at=row[8],
        hints_used=row[9],
        shown_hint=row[10],
        actions=row[11],
        duel_of=row[12],
        duel_actions=row[13],
        duel_reported=bool(row[14]),
    )


def _challenge_from_row(row: Row) -> Challenge:
    return Challenge(*row[:10], finished=bool(row[10]))


def _dump(game: engine.Game) -> str:
    return json.dumps(engine.to_dict(game), separators=(",", ":"))


class Storage(PlayerQueries, RecordQueries, RedeliveryQueries, OutboxQueries):
    """Players, games, records and challenges; `bot.storage.open_storage` picks the backend."""

    # ----- games ------------------------------------------------------------------------------

    async def game(self, game_id: int) -> StoredGame | None:
        """The game; inside a transaction its row stays locked until the commit."""
        row = await self._fetchrow(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?{self._for_update()}", (game_id,)
        )
        return None if row is None else _game_from_row(row)

    async def active_game(self, chat_id: int, owner_id: int) -> StoredGame | None:
        await self._serialize(f"active:{chat_id}:{owner_id}")
        row = await self._fetchrow(
            f"SELECT {_GAME_COLUMNS} FROM games "
            "WHERE chat_id = ? AND owner_id = ? AND active = 1 AND challenge_id IS NULL"
            f"{self._for_update()}",
            (chat_id, owner_id),
        )
        return None if row is None else _game_from_row(row)

    async def insert_game(
        self,
        chat_id: int,
        owner_id: int,
        game: engine.Game,
        now: float,
        challenge: Challenge | None = None,
        duel: tuple[int, int] | None = None,
    ) -> int:
        """A new game (no actions yet); `duel` is (game id, actions) of the game it duels."""
        return await self._insert(
            "INSERT INTO games (chat_id, owner_id, size, state, challenge_id, closes_at, "
            "highest, score_at, created_at, updated_at, actions, duel_of, duel_actions) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?)",
            (
                chat_id,
                owner_id,
                game.size,
                _dump(game),
                challenge.id if challenge else None,
                challenge.ends_at if challenge else None,
                game.highest,
                now,
                now,
                now,
                duel[0] if duel else None,
                duel[1] if duel else None,
            ),
        )

    async def update_game(
        self,
        stored: StoredGame,
        game: engine.Game,
        now: float,
        *,
        played_counted: bool,
        action: engine.Action,
    ) -> None:
        """Save a game's new state and log the action that made it (if the game has a log).

        `score_at` moves only when the score does (for ties).
        """
        await self._execute(
            "UPDATE games SET state = ?, played_counted = ?, score = ?, highest = ?, moves = ?, "
            "score_at = CASE WHEN score != ? THEN ? ELSE score_at END, updated_at = ?, "
            "hint = NULL, actions = actions || ? WHERE id = ?",
            (
                _dump(game),
                int(played_counted),
                game.score,
                game.highest,
                game.moves,
                game.score,
                now,
                now,
                engine.ACTION_CODES[action],
                stored.id,
            ),
        )

    async def save_hint(self, stored: StoredGame, direction: str) -> None:
        """Show a hint on the board and count it, for the game and the player's records."""
        await self._execute(
            "UPDATE games SET hint = ?, hints = hints + 1 WHERE id = ?", (direction, stored.id)
        )
        await self._execute(
            "INSERT INTO records (user_id, size, hints_used) VALUES (?, ?, 1) "
            "ON CONFLICT (user_id, size) DO UPDATE SET hints_used = records.hints_used + 1",
            (stored.owner_id, stored.game.size),
        )

    async def latest_game(self, chat_id: int, owner_id: int) -> StoredGame | None:
        """The player's most recently played game with a move: in this chat if there is one
        (a group's challenge entries count as the group's), else anywhere."""
        row = await self._fetchrow(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE owner_id = ? AND moves > 0 "
            "ORDER BY CASE WHEN chat_id = ? OR challenge_id IN "
            "(SELECT id FROM challenges WHERE chat_id = ?) THEN 0 ELSE 1 END, "
            "updated_at DESC, id DESC LIMIT 1",
            (owner_id, chat_id, chat_id),
        )
        return None if row is None else _game_from_row(row)

    async def best_games(self, owner_id: int) -> dict[int, StoredGame]:
        """The player's best game of each board size, anywhere (ranked as leaderboards rank)."""
        rows = await self._fetchall(
            f"""SELECT {_GAME_COLUMNS} FROM (
                    SELECT games.*, ROW_NUMBER() OVER (
                        PARTITION BY size ORDER BY {_RANKING}, id) AS pick
                    FROM games WHERE owner_id = ? AND moves > 0
                ) ranked WHERE pick = 1 ORDER BY size""",
            (owner_id,),
        )
        games = [_game_from_row(row) for row in rows]
        return {stored.game.size: stored for stored in games}

    async def report_duel(self, game_id: int) -> bool:
        """Mark a duel's comparison as sent; False if it was already (send it once)."""
        changed = await self._execute(
            "UPDATE games SET duel_reported = 1 WHERE id = ? AND duel_reported = 0", (game_id,)
        )
        return changed == 1

    async def shared_file(self, key: str) -> str | None:
        row = await self._fetchrow("SELECT file_id FROM shared_files WHERE key = ?", (key,))
        return None if row is None else row[0]

    async def remember_file(self, key: str, file_id: str, now: float) -> None:
        await self._execute(
            "INSERT INTO shared_files (key, file_id, created_at) VALUES (?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET file_id = excluded.file_id",
            (key, file_id, now),
        )

    async def deactivate_game(self, game_id: int) -> None:
        await self._execute("UPDATE games SET active = 0 WHERE id = ?", (game_id,))

    async def link_message(self, game_id: int, message_id: int) -> None:
        await self._execute("UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id))

    # ----- group chats ------------------------------------------------------------------------

    async def chat_language(self, chat_id: int) -> str | None:
        row = await self._fetchrow("SELECT language FROM chats WHERE chat_id = ?", (chat_id,))
        return None if row is None else row[0]

    async def set_chat_language(self, chat_id: int, language: str) -> None:
        await self._execute(
            "INSERT INTO chats (chat_id, language) VALUES (?, ?) "
            "ON CONFLICT (chat_id) DO UPDATE SET language = excluded.language",
            (chat_id, language),
        )

    async def move_chat(self, old: int, new: int) -> list[Challenge]:
        """Give group `new` everything of group `old`: games, challenges and language.

        Telegram upgrades a basic group to a supergroup under a new id. The messages stay in
        the old chat, so boards and cards forget their message (the next one is posted in the
        new chat). A player with a running game in both keeps the newer, the new chat's.
        Returns the open challenges moved; moving twice moves nothing the second time.
        """
        await self._serialize(f"chat:{old}")
        moved = await self._fetchall(
            "SELECT id FROM challenges WHERE chat_id = ? AND finished = 0 ORDER BY ends_at",
            (old,),
        )
        await self._execute(
            "UPDATE games SET active = 0 "
            "WHERE chat_id = ? AND active = 1 AND challenge_id IS NULL AND owner_id IN ("
            "SELECT owner_id FROM games WHERE chat_id = ? AND active = 1 AND challenge_id IS NULL)",
            (old, new),
        )
        await self._execute(
            "UPDATE games SET chat_id = ?, message_id = NULL WHERE chat_id = ?", (new, old)
        )
        await self._execute(
            "UPDATE challenges SET chat_id = ?, message_id = NULL WHERE chat_id = ?", (new, old)
        )
        await self._execute(
            "INSERT INTO chats (chat_id, language) SELECT ?, language FROM chats "
            "WHERE chat_id = ? ON CONFLICT (chat_id) DO NOTHING",
            (new, old),
        )
        await self._execute("DELETE FROM chats WHERE chat_id = ?", (old,))
        challenges = [await self.challenge(challenge_id) for (challenge_id,) in moved]
        return [challenge for challenge in challenges if challenge is not None]

    async def _standings(
        self, games_filter: str, params: tuple[object, ...], limit: int, asker: int | None
    ) -> list[Standing]:
        """The top `limit` players (each by their best game) plus the asker's own line."""
        query = f"""
            WITH best AS (
                SELECT owner_id, score, highest, moves, score_at,
                       ROW_NUMBER() OVER (PARTITION BY owner_id ORDER BY {_RANKING}) AS pick
                FROM games WHERE moves > 0 AND {games_filter}
            ), ranked AS (
                SELECT owner_id, score, highest, moves,
                       ROW_NUMBER() OVER (ORDER BY {_RANKING}, owner_id) AS rank
                FROM best WHERE pick = 1
            )
            SELECT rank, owner_id, coalesce(players.name, ''), score, highest, moves
            FROM ranked LEFT JOIN players ON players.user_id = ranked.owner_id
            WHERE rank <= ? OR owner_id = ?
            ORDER BY rank"""
        rows = await self._fetchall(query, (*params, limit, asker))
        return [Standing(*row) for row in rows]

    async def group_leaderboard(
        self, chat_id: int, size: int, limit: int, asker: int | None = None
    ) -> list[Standing]:
        return await self._standings(
            "chat_id = ? AND size = ? AND challenge_id IS NULL", (chat_id, size), limit, asker
        )

    # ----- challenges -------------------------------------------------------------------------

    async def insert_challenge(
        self,
        chat_id: int,
        chat_title: str,
        language: str,
        creator_id: int,
        size: int,
        seed: int,
        token: str,
        now: float,
        ends_at: float,
    ) -> Challenge:
        challenge_id = await self._insert(
            "INSERT INTO challenges (chat_id, chat_title, language, creator_id, size, seed, "
            "token, created_at, ends_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (chat_id, chat_title, language, creator_id, size, seed, token, now, ends_at),
        )
        challenge = await self.challenge(challenge_id)
        assert challenge is not None
        return challenge

    async def challenge(self, challenge_id: int) -> Challenge | None:
        row = await self._fetchrow(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
        )
        return None if row is None else _challenge_from_row(row)

    async def open_challenges(
        self, chat_id: int | None = None, ending_by: float | None = None
    ) -> list[Challenge]:
        """Every open challenge, or one group's, or those due to end by `ending_by`; the
        soonest to end first."""
        where, params = ("", ()) if chat_id is None else (" AND chat_id = ?", (chat_id,))
        if ending_by is not None:
            where, params = f"{where} AND ends_at <= ?", (*params, ending_by)
        rows = await self._fetchall(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE finished = 0{where} "
            "ORDER BY ends_at",
            params,
        )
        return [_challenge_from_row(row) for row in rows]

    async def finished_challenges(self, chat_id: int, limit: int) -> list[Challenge]:
        """A group's last `limit` finished challenges, the latest first."""
        rows = await self._fetchall(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE chat_id = ? AND finished = 1 "
            "ORDER BY ends_at DESC, id DESC LIMIT ?",
            (chat_id, limit),
        )
        return [_challenge_from_row(row) for row in rows]

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> bool:
        """Make `message_id` the challenge's card, unless it has one already (then False)."""
        changed = await self._execute(
            "UPDATE challenges SET message_id = ? WHERE id = ? AND message_id IS NULL",
            (message_id, challenge_id),
        )
        return changed == 1

    async def withdraw_challenge(self, challenge_id: int) -> bool:
        """Delete a challenge nobody can have seen: no card, no entries. False if it has."""
        changed = await self._execute(
            "DELETE FROM challenges WHERE id = ? AND message_id IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM games WHERE challenge_id = ?)",
            (challenge_id, challenge_id),
        )
        return changed == 1

    async def finish_challenge(self, challenge_id: int) -> bool:
        """Close a challenge and its entries; False if it was already closed (run once).

        Once across processes too: a second UPDATE waits for the first one's row lock, then
        finds `finished` set and changes nothing.
        """
        changed = await self._execute(
            "UPDATE challenges SET finished = 1 WHERE id = ? AND finished = 0",
            (challenge_id,),
        )
        if changed != 1:
            return False
        await self._execute("UPDATE games SET active = 0 WHERE challenge_id = ?", (challenge_id,))
        return True

    async def challenge_entry(self, challenge_id: int, owner_id: int) -> StoredGame | None:
        await self._serialize(f"entry:{challenge_id}:{owner_id}")
        row = await self._fetchrow(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE challenge_id = ? AND owner_id = ?"
            f"{self._for_update()}",
            (challenge_id, owner_id),
        )
        return None if row is None else _game_from_row(row)

    async def challenge_entries(self, challenge_id: int) -> list[StoredGame]:
        """Every player's game in the challenge, each in their private chat."""
        rows = await self._fetchall(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE challenge_id = ? ORDER BY id",
            (challenge_id,),
        )
        return [_game_from_row(row) for row in rows]

    async def challenge_standings(
        self, challenge_id: int, limit: int, asker: int | None = None
    ) -> list[Standing]:
        return await self._standings("challenge_id = ?", (challenge_id,), limit, asker)

    async def challenge_players(self, challenge_id: int) -> int:
        row = await self._fetchrow(
            "SELECT count(*) FROM games WHERE challenge_id = ?", (challenge_id,)
        )
        assert row is not None
        return row[0]
