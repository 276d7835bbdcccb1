"""SQLite storage: one file, WAL mode, versioned migrations (PRAGMA user_version).

The embedded default, for one bot process. Every write goes through `transaction()`, which
serialises writers on the one connection: aiosqlite runs statements on a single thread, but
without the lock two coroutines could interleave their statements inside one SQLite
transaction. For the same reason a read from outside the transaction waits for it to end:
on the shared connection it would otherwise see (and, say, redraw a board from) changes
that are not committed yet and may still be rolled back.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

from bot.storage.base import Row, Storage, StorageUnavailable

# Each entry migrates the schema from version i to i + 1; never edit a released step.
# bot/storage/postgres.py has the same steps in PostgreSQL's dialect.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the first release, private games only.
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
    # 2: groups and challenges.
    (
        """CREATE TABLE challenges (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            chat_id INTEGER NOT NULL,
            chat_title TEXT NOT NULL,
            language TEXT NOT NULL,
            creator_id INTEGER NOT NULL,
            size INTEGER NOT NULL,
            seed INTEGER NOT NULL,
            token TEXT NOT NULL,
            created_at REAL NOT NULL,
            ends_at REAL NOT NULL,
            message_id INTEGER,
            finished INTEGER NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX challenges_open ON challenges (finished, ends_at)",
        "ALTER TABLE games ADD COLUMN challenge_id INTEGER REFERENCES challenges (id)",
        "ALTER TABLE games ADD COLUMN closes_at REAL",
        # What leaderboards rank by, kept beside the saved state so they can be queried.
        "ALTER TABLE games ADD COLUMN score INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN highest INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN moves INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN score_at REAL NOT NULL DEFAULT 0",
        # Games saved before: read them from the state (tiles are stored as exponents).
        """UPDATE games SET
            score = json_extract(state, '$.sc'),
            moves = json_extract(state, '$.mv'),
            highest = (SELECT 1 << max(value) FROM json_each(games.state, '$.b')),
            score_at = updated_at""",
        # A player has one running ordinary game per chat, and one entry per challenge.
        "DROP INDEX games_one_active",
        """CREATE UNIQUE INDEX games_one_active
            ON games (chat_id, owner_id) WHERE active = 1 AND challenge_id IS NULL""",
        """CREATE UNIQUE INDEX games_one_entry
            ON games (challenge_id, owner_id) WHERE challenge_id IS NOT NULL""",
        "CREATE INDEX games_leaderboard ON games (chat_id, size, score)",
        """CREATE TABLE chats (
            chat_id INTEGER PRIMARY KEY,
            language TEXT
        )""",
    ),
    # 3: hints.
    (
        "ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0",
        # The direction the last hint suggested, shown on the board until the next change.
        "ALTER TABLE games ADD COLUMN hint TEXT",
        "ALTER TABLE records ADD COLUMN hints_used INTEGER NOT NULL DEFAULT 0",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


async def _check_usable(connection: aiosqlite.Connection, path: Path) -> None:
    """Refuse, before anything is served, a file the bot could not keep every move in.

    A damaged file would fail some taps at random, and a read-only one every tap: both are
    found at start (`quick_check` reads every page; a write rolled back at once proves the
    file can be written), so the operator learns of it at once and in one line.
    """
    try:
        async with connection.execute("PRAGMA quick_check") as cursor:
            problems = [row[0] for row in await cursor.fetchall()]
    except sqlite3.DatabaseError as error:
        problems = [str(error)]
    if problems != ["ok"]:
        raise StorageUnavailable(
            f"{path} is not a sound SQLite database ({problems[0]}): restore it from a backup, "
            "or move it away to start afresh"
        )
    async with connection.execute("PRAGMA user_version") as cursor:
        (version,) = await cursor.fetchone()  # type: ignore[misc]
    try:
        await connection.execute("BEGIN IMMEDIATE")
        try:
            await connection.execute(f"PRAGMA user_version = {int(version)}")
        finally:
            await connection.execute("ROLLBACK")
    except sqlite3.OperationalError as error:
        raise StorageUnavailable(
            f"{path} cannot be written ({error}): check the file's permissions"
        ) from error


class SqliteStorage(Storage):
    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self._db = connection
        self.path = path
        self._write_lock = asyncio.Lock()
        self._writer: asyncio.Task[object] | None = None  # the task inside `transaction()`

    @classmethod
    async def connect(cls, path: Path) -> SqliteStorage:
        connection = await aiosqlite.connect(path, isolation_level=None)
        # From here on the connection's thread must be closed on any failure: left open, it
        # keeps the process alive after the error has been reported.
        try:
            await _check_usable(connection, path)
            await connection.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a killed process; only a power cut can lose the last
            # commits, which is the usual trade for a chat bot that commits on every tap.
            await connection.execute("PRAGMA synchronous=NORMAL")
            await connection.execute("PRAGMA foreign_keys=ON")
            storage = cls(connection, path)
            await storage._migrate()
        except BaseException:
            await connection.close()
            raise
        return storage

    def __repr__(self) -> str:
        return f"SQLite {self.path}"

    async def close(self) -> None:
        async with self._write_lock:
            await self._db.close()

    async def _migrate(self) -> None:
        version = await self.schema_version()
        if version > SCHEMA_VERSION:
            raise StorageUnavailable(
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
            self._writer = asyncio.current_task()
            try:
                await self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield
                except BaseException:
                    await self._db.execute("ROLLBACK")
                    raise
                await self._db.execute("COMMIT")
            finally:
                self._writer = None

    @asynccontextmanager
    async def _committed(self) -> AsyncIterator[None]:
        """Read inside one's own transaction, or else after whichever one is open has ended."""
        if self._writer is not None and self._writer is asyncio.current_task():
            yield
            return
        async with self._write_lock:
            yield

    @asynccontextmanager
    async def serialized(self, key: str) -> AsyncIterator[None]:
        # One process owns a SQLite file: nobody else can interleave.
        yield

    async def _fetchrow(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        async with self._committed(), self._db.execute(sql, params) as cursor:
            row = await cursor.fetchone()
        return None if row is None else tuple(row)

    async def _fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        async with self._committed(), self._db.execute(sql, params) as cursor:
            rows = await cursor.fetchall()
        return [tuple(row) for row in rows]

    async def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        cursor = await self._db.execute(sql, params)
        return cursor.rowcount

    async def _insert(self, sql: str, params: Sequence[object] = ()) -> int:
        cursor = await self._db.execute(sql, params)
        assert cursor.lastrowid is not None
        return cursor.lastrowid
