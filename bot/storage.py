"""SQLite storage: players, games and records, one file, WAL mode, versioned migrations.

Every write goes through `transaction()`, which serialises writers on the one connection:
aiosqlite runs statements on a single thread, but without the lock two coroutines could
interleave their statements inside one SQLite transaction.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

import engine

# Each entry migrates the schema from version i to i + 1; never edit a released step.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE players (
            user_id INTEGER PRIMARY KEY,
            name TEXT NOT NULL DEFAULT '',
            language TEXT,
            view TEXT NOT NULL DEFAULT 'emoji'
        )""",
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            chat_id INTEGER NOT NULL,
            owner_id INTEGER NOT NULL,
            size INTEGER NOT NULL,
            state TEXT NOT NULL,
            active INTEGER NOT NULL DEFAULT 1,
            message_id INTEGER,
            played_counted INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )""",
        """CREATE UNIQUE INDEX games_one_active
            ON games (chat_id, owner_id) WHERE active = 1""",
        """CREATE TABLE records (
            user_id INTEGER NOT NULL,
            size INTEGER NOT NULL,
            best_score INTEGER NOT NULL DEFAULT 0,
            games_played INTEGER NOT NULL DEFAULT 0,
            games_won INTEGER NOT NULL DEFAULT 0,
            highest_tile INTEGER NOT NULL DEFAULT 0,
            fewest_moves_to_win INTEGER,
            fastest_win_seconds REAL,
            PRIMARY KEY (user_id, size)
        )""",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


@dataclass(frozen=True, slots=True)
class Player:
    user_id: int
    name: str = ""
    language: str | None = None
    view: str = "emoji"


@dataclass(frozen=True, slots=True)
class StoredGame:
    id: int
    chat_id: int
    owner_id: int
    game: engine.Game
    active: bool
    message_id: int | None
    played_counted: bool


@dataclass(frozen=True, slots=True)
class Record:
    size: int
    best_score: int = 0
    games_played: int = 0
    games_won: int = 0
    highest_tile: int = 0
    fewest_moves_to_win: int | None = None
    fastest_win_seconds: float | None = None


_GAME_COLUMNS = "id, chat_id, owner_id, state, active, message_id, played_counted"


def _game_from_row(row: aiosqlite.Row) -> StoredGame:
    return StoredGame(
        id=row[0],
        chat_id=row[1],
        owner_id=row[2],
        game=engine.from_dict(json.loads(row[3])),
        active=bool(row[4]),
        message_id=row[5],
        played_counted=bool(row[6]),
    )


def _dump(game: engine.Game) -> str:
    return json.dumps(engine.to_dict(game), separators=(",", ":"))


class Storage:
    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._db = connection
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path) -> Storage:
        connection = await aiosqlite.connect(path, isolation_level=None)
        await connection.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a killed process; only a power cut can lose the last
        # commits, which is the usual trade for a chat bot that commits on every tap.
        await connection.execute("PRAGMA synchronous=NORMAL")
        await connection.execute("PRAGMA foreign_keys=ON")
        storage = cls(connection)
        try:
            await storage._migrate()
        except BaseException:
            await connection.close()
            raise
        return storage

    async def close(self) -> None:
        async with self._write_lock:
            await self._db.close()

    async def _migrate(self) -> None:
        async with self._db.execute("PRAGMA user_version") as cursor:
            (version,) = await cursor.fetchone()  # type: ignore[misc]
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"database schema {version} is newer than this bot ({SCHEMA_VERSION}): upgrade"
            )
        for step in range(version, SCHEMA_VERSION):
            async with self.transaction():
                for statement in MIGRATIONS[step]:
                    await self._db.execute(statement)
                await self._db.execute(f"PRAGMA user_version = {step + 1}")

    async def schema_version(self) -> int:
        async with self._db.execute("PRAGMA user_version") as cursor:
            (version,) = await cursor.fetchone()  # type: ignore[misc]
        return version

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        async with self._write_lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            await self._db.execute("COMMIT")

    # Players

    async def player(self, user_id: int) -> Player:
        async with self._db.execute(
            "SELECT name, language, view FROM players WHERE user_id = ?", (user_id,)
        ) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return Player(user_id)
        return Player(user_id, row[0], row[1], row[2])

    async def remember_name(self, user_id: int, name: str) -> None:
        """Keep the name current, so leaderboards show a renamed player's new name."""
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO players (user_id, name) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET name = excluded.name "
                "WHERE players.name != excluded.name",
                (user_id, name),
            )

    async def set_language(self, user_id: int, language: str) -> None:
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO players (user_id, language) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET language = excluded.language",
                (user_id, language),
            )

    async def set_view(self, user_id: int, view: str) -> None:
        async with self.transaction():
            await self._db.execute(
                "INSERT INTO players (user_id, view) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET view = excluded.view",
                (user_id, view),
            )

    # Games (writes happen inside a transaction opened by the caller)

    async def game(self, game_id: int) -> StoredGame | None:
        async with self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return None if row is None else _game_from_row(row)

    async def active_game(self, chat_id: int, owner_id: int) -> StoredGame | None:
        async with self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE chat_id = ? AND owner_id = ? AND active = 1",
            (chat_id, owner_id),
        ) as cursor:
            row = await cursor.fetchone()
        return None if row is None else _game_from_row(row)

    async def insert_game(self, chat_id: int, owner_id: int, game: engine.Game, now: float) -> int:
        cursor = await self._db.execute(
            "INSERT INTO games (chat_id, owner_id, size, state, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (chat_id, owner_id, game.size, _dump(game), now, now),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    async def update_game(
        self, game_id: int, game: engine.Game, now: float, *, played_counted: bool
    ) -> None:
        await self._db.execute(
            "UPDATE games SET state = ?, played_counted = ?, updated_at = ? WHERE id = ?",
            (_dump(game), int(played_counted), now, game_id),
        )

    async def deactivate_game(self, game_id: int) -> None:
        await self._db.execute("UPDATE games SET active = 0 WHERE id = ?", (game_id,))

    async def link_message(self, game_id: int, message_id: int) -> None:
        async with self.transaction():
            await self._db.execute(
                "UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id)
            )

    # Records

    async def records(self, user_id: int) -> dict[int, Record]:
        async with self._db.execute(
            "SELECT size, best_score, games_played, games_won, highest_tile, "
            "fewest_moves_to_win, fastest_win_seconds FROM records WHERE user_id = ?",
            (user_id,),
        ) as cursor:
            rows = await cursor.fetchall()
        return {row[0]: Record(*row) for row in rows}

    async def best_score(self, user_id: int, size: int) -> int:
        async with self._db.execute(
            "SELECT best_score FROM records WHERE user_id = ? AND size = ?", (user_id, size)
        ) as cursor:
            row = await cursor.fetchone()
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
        await self._db.execute(
            """INSERT INTO records (user_id, size, best_score, games_played, games_won,
                   highest_tile, fewest_moves_to_win, fastest_win_seconds)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (user_id, size) DO UPDATE SET
                   best_score = max(best_score, excluded.best_score),
                   games_played = games_played + excluded.games_played,
                   games_won = games_won + excluded.games_won,
                   highest_tile = max(highest_tile, excluded.highest_tile),
                   fewest_moves_to_win = coalesce(
                       min(fewest_moves_to_win, excluded.fewest_moves_to_win),
                       fewest_moves_to_win, excluded.fewest_moves_to_win),
                   fastest_win_seconds = coalesce(
                       min(fastest_win_seconds, excluded.fastest_win_seconds),
                       fastest_win_seconds, excluded.fastest_win_seconds)""",
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
