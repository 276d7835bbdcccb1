"""The storage interface and every query in it, written once for both backends.

A backend supplies a handful of primitives (run a statement, fetch rows, insert and return the
id, open a transaction) and its dialect's few differences; everything else, and with it the
schema's semantics, is shared. Queries use `?` placeholders; PostgreSQL numbers them.

Writes that belong together run inside `transaction()`, opened by the caller (the game
service) around a read-modify-write. Reads of a game or an entry inside a transaction are
the "modify" part's input, so a backend that serves several processes locks what they read
(`_for_update`, `_serialize`): the second process's read waits for the first one's commit.
"""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import engine
from bot.models import Challenge, Player, Record, Standing, StoredGame

if TYPE_CHECKING:
    from bot.config import Config

Row = tuple[Any, ...]

_GAME_COLUMNS = (
    "id, chat_id, owner_id, state, active, message_id, played_counted, challenge_id, closes_at, "
    "hints, hint"
)
_CHALLENGE_COLUMNS = (
    "id, chat_id, chat_title, language, creator_id, size, seed, token, ends_at, message_id, "
    "finished"
)
# Best first: score, then highest tile, then fewer moves, then whoever got there first.
_RANKING = "score DESC, highest DESC, moves ASC, score_at ASC"


class StorageUnavailable(RuntimeError):
    """The database cannot be used: unreachable, refused, or of a newer schema."""


def is_postgres_url(target: str | os.PathLike[str]) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def _driver_errors() -> tuple[type[Exception], ...]:
    """What the drivers raise for a database that cannot be reached or used."""
    import sqlite3

    import asyncpg

    return (sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError)


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
        hints=row[9],
        hint=row[10],
    )


def _challenge_from_row(row: Row) -> Challenge:
    return Challenge(*row[:10], finished=bool(row[10]))


def _dump(game: engine.Game) -> str:
    return json.dumps(engine.to_dict(game), separators=(",", ":"))


class Storage(ABC):
    """Players, games, records and challenges; `Storage.open(target)` picks the backend."""

    # Whether other bot processes may write the same database (PostgreSQL behind webhooks).
    shared = False
    # The two-argument scalar max and min: SQLite's max()/min(), PostgreSQL's GREATEST/LEAST.
    # Both skip NULL the way the queries below rely on (min with a NULL is wrapped in coalesce).
    _GREATEST = "max"
    _LEAST = "min"

    @classmethod
    async def open(
        cls,
        target: str | os.PathLike[str],
        *,
        pool_size: int | None = None,
        wait: float | None = None,
    ) -> Storage:
        """A SQLite file (a path) or a PostgreSQL database (a postgresql:// URL), migrated.

        For PostgreSQL, `pool_size` connections at most, and an update waits `wait` seconds
        at most for one of them.
        """
        if is_postgres_url(target):
            from bot.storage.postgres import PostgresStorage, describe_url

            label = describe_url(str(target))
            connect = PostgresStorage.connect(str(target), pool_size=pool_size, wait=wait)
        else:
            from bot.storage.sqlite import SqliteStorage

            label, connect = f"SQLite {target}", SqliteStorage.connect(Path(target))
        try:
            return await connect
        except StorageUnavailable:
            raise
        except (OSError, TimeoutError, *_driver_errors()) as error:
            raise StorageUnavailable(
                f"cannot open the database ({label}): {error.__class__.__name__}: {error}"
            ) from error

    # ----- what a backend provides ------------------------------------------------------------

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def schema_version(self) -> int: ...

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[None]:
        """Everything awaited inside commits together, or not at all; not reentrant."""

    @abstractmethod
    def serialized(self, key: str) -> AbstractAsyncContextManager[None]:
        """Run a block alone among every process sharing the database (for one key).

        For work outside the database that must not interleave across processes, such as
        redrawing one board message; a no-op where only one process can use the database.
        """

    @abstractmethod
    async def _fetchrow(self, sql: str, params: Sequence[object] = ()) -> Row | None: ...

    @abstractmethod
    async def _fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]: ...

    @abstractmethod
    async def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one statement; the number of rows it changed."""

    @abstractmethod
    async def _insert(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one INSERT into a table with an `id` column; the new row's id."""

    def _for_update(self) -> str:
        """A row-lock clause for reads inside a transaction (PostgreSQL: FOR UPDATE)."""
        return ""

    async def _serialize(self, key: str) -> None:
        """Inside a transaction: wait for, then hold until commit, the lock named `key`.

        Guards a read-then-insert (one running game per chat, one entry per challenge), where
        there is no row yet to lock. SQLite needs none: its writers are serialised already.
        """
        return

    # ----- players ----------------------------------------------------------------------------

    async def player(self, user_id: int) -> Player:
        row = await self._fetchrow(
            "SELECT name, language, view FROM players WHERE user_id = ?", (user_id,)
        )
        if row is None:
            return Player(user_id)
        return Player(user_id, row[0], row[1], row[2])

    async def remember_name(self, user_id: int, name: str) -> None:
        """Keep the name current, so leaderboards show a renamed player's new name."""
        async with self.transaction():
            await self._execute(
                "INSERT INTO players (user_id, name) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET name = excluded.name "
                "WHERE players.name != excluded.name",
                (user_id, name),
            )

    async def set_language(self, user_id: int, language: str) -> None:
        async with self.transaction():
            await self._execute(
                "INSERT INTO players (user_id, language) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET language = excluded.language",
                (user_id, language),
            )

    async def set_view(self, user_id: int, view: str) -> None:
        async with self.transaction():
            await self._execute(
                "INSERT INTO players (user_id, view) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET view = excluded.view",
                (user_id, view),
            )

    # ----- games (writes happen inside a transaction opened by the caller) --------------------

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
    ) -> int:
        return await self._insert(
            "INSERT INTO games (chat_id, owner_id, size, state, challenge_id, closes_at, "
            "highest, score_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            ),
        )

    async def update_game(
        self, stored: StoredGame, game: engine.Game, now: float, *, played_counted: bool
    ) -> None:
        """Save a game's new state; `score_at` moves only when the score does (for ties)."""
        await self._execute(
            "UPDATE games SET state = ?, played_counted = ?, score = ?, highest = ?, moves = ?, "
            "score_at = CASE WHEN score != ? THEN ? ELSE score_at END, updated_at = ?, "
            "hint = NULL WHERE id = ?",
            (
                _dump(game),
                int(played_counted),
                game.score,
                game.highest,
                game.moves,
                game.score,
                now,
                now,
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

    async def deactivate_game(self, game_id: int) -> None:
        await self._execute("UPDATE games SET active = 0 WHERE id = ?", (game_id,))

    async def link_message(self, game_id: int, message_id: int) -> None:
        async with self.transaction():
            await self._execute(
                "UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id)
            )

    # ----- records ----------------------------------------------------------------------------

    async def records(self, user_id: int) -> dict[int, Record]:
        rows = await self._fetchall(
            "SELECT size, best_score, games_played, games_won, highest_tile, "
            "fewest_moves_to_win, fastest_win_seconds, hints_used FROM records WHERE user_id = ?",
            (user_id,),
        )
        return {row[0]: Record(*row) for row in rows}

    async def best_score(self, user_id: int, size: int) -> int:
        row = await self._fetchrow(
            "SELECT best_score FROM records WHERE user_id = ? AND size = ?", (user_id, size)
        )
        return 0 if row is None else row[0]

    async def add_to_records(
        self,
        user_id: int,
        game: engine.Game,
        *,
        new_play: bool,
        new_win: bool,
        won_now: engine.Win | None,
    ) -> None:
        """Fold one game's progress into the player's records for that board size."""
        most, least = self._GREATEST, self._LEAST
        await self._execute(
            f"""INSERT INTO records (user_id, size, best_score, games_played, games_won,
                   highest_tile, fewest_moves_to_win, fastest_win_seconds)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (user_id, size) DO UPDATE SET
                   best_score = {most}(records.best_score, excluded.best_score),
                   games_played = records.games_played + excluded.games_played,
                   games_won = records.games_won + excluded.games_won,
                   highest_tile = {most}(records.highest_tile, excluded.highest_tile),
                   fewest_moves_to_win = coalesce(
                       {least}(records.fewest_moves_to_win, excluded.fewest_moves_to_win),
                       records.fewest_moves_to_win, excluded.fewest_moves_to_win),
                   fastest_win_seconds = coalesce(
                       {least}(records.fastest_win_seconds, excluded.fastest_win_seconds),
                       records.fastest_win_seconds, excluded.fastest_win_seconds)""",
            (
                user_id,
                game.size,
                game.score,
                int(new_play),
                int(new_win),
                game.highest,
                won_now.moves if won_now else None,
                won_now.play_seconds if won_now else None,
            ),
        )

    # ----- group chats ------------------------------------------------------------------------

    async def chat_language(self, chat_id: int) -> str | None:
        row = await self._fetchrow("SELECT language FROM chats WHERE chat_id = ?", (chat_id,))
        return None if row is None else row[0]

    async def set_chat_language(self, chat_id: int, language: str) -> None:
        async with self.transaction():
            await self._execute(
                "INSERT INTO chats (chat_id, language) VALUES (?, ?) "
                "ON CONFLICT (chat_id) DO UPDATE SET language = excluded.language",
                (chat_id, language),
            )

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
        async with self.transaction():
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

    async def open_challenges(self) -> list[Challenge]:
        rows = await self._fetchall(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE finished = 0 ORDER BY ends_at"
        )
        return [_challenge_from_row(row) for row in rows]

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        async with self.transaction():
            await self._execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )

    async def finish_challenge(self, challenge_id: int) -> bool:
        """Close a challenge and its entries; False if it was already closed (run once).

        Once across processes too: a second UPDATE waits for the first one's row lock, then
        finds `finished` set and changes nothing.
        """
        async with self.transaction():
            changed = await self._execute(
                "UPDATE challenges SET finished = 1 WHERE id = ? AND finished = 0",
                (challenge_id,),
            )
            if changed != 1:
                return False
            await self._execute(
                "UPDATE games SET active = 0 WHERE challenge_id = ?", (challenge_id,)
            )
        return True

    async def challenge_entry(self, challenge_id: int, owner_id: int) -> StoredGame | None:
        await self._serialize(f"entry:{challenge_id}:{owner_id}")
        row = await self._fetchrow(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE challenge_id = ? AND owner_id = ?"
            f"{self._for_update()}",
            (challenge_id, owner_id),
        )
        return None if row is None else _game_from_row(row)

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


async def open_storage(config: Config) -> Storage:
    """The storage a configuration asks for: PostgreSQL with a DATABASE_URL, else SQLite."""
    return await Storage.open(
        config.database_url or config.database,
        pool_size=config.database_pool_size,
        wait=config.database_wait,
    )
