"""SQLite storage: one file, WAL mode, the schema version in PRAGMA user_version.

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

from bot.metrics import DATABASE_WAIT
from bot.models import SendAsk
from bot.storage.queries import Storage
from bot.storage.queries.base import Row, StorageUnavailable, TransactionError
from bot.storage.schema import SQLITE


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
            await connection.execute(f"PRAGMA user_version = {version:d}")
        finally:
            await connection.execute("ROLLBACK")
    except sqlite3.OperationalError as error:
        raise StorageUnavailable(
            f"{path} cannot be written ({error}): check the file's permissions"
        ) from error


class SqliteStorage(Storage):
    _dialect = SQLITE

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

    async def schema_version(self) -> int:
        async with self._db.execute("PRAGMA user_version") as cursor:
            (version,) = await cursor.fetchone()  # type: ignore[misc]
        return version

    async def _write_version(self, version: int) -> None:
        # A pragma takes no parameters; `:d` lets nothing but an int into the statement.
        await self._execute(f"PRAGMA user_version = {version:d}")

    def _in_transaction(self) -> bool:
        return self._writer is not None and self._writer is asyncio.current_task()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        if self._in_transaction():
            raise TransactionError("storage transactions do not nest")
        with DATABASE_WAIT.time():
            await self._write_lock.acquire()
        try:
            self._writer = asyncio.current_task()
            try:
                try:
                    await self._db.execute("BEGIN IMMEDIATE")
                    yield
                except BaseException:
                    await self._roll_back()
                    raise
                await self._db.execute("COMMIT")
            finally:
                self._writer = None
        finally:
            self._write_lock.release()

    async def _roll_back(self) -> None:
        """End whatever this transaction began, even if it was cancelled while BEGIN waited.

        aiosqlite queues each statement for its thread the moment it is awaited, so a task
        cancelled there (a job cut off at its time limit) still has its BEGIN run; the
        ROLLBACK queued behind it ends that transaction rather than leaving it open for the
        next writer's BEGIN to fail on. If BEGIN itself failed, there is nothing to end.
        """
        try:
            await self._db.execute("ROLLBACK")
        except sqlite3.OperationalError as error:
            if "no transaction is active" not in str(error):
                raise

    def _require_transaction(self) -> None:
        if not self._in_transaction():
            raise TransactionError("storage writes run inside transaction()")

    @asynccontextmanager
    async def _committed(self) -> AsyncIterator[None]:
        """Read inside one's own transaction, or else after whichever one is open has ended."""
        if self._in_transaction():
            yield
            return
        async with self._write_lock:
            yield

    async def _fetchrow(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        rows = await self._fetchall(sql, params)
        return rows[0] if rows else None

    async def _fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        # One trip to aiosqlite's thread instead of three (execute, fetch, close): every
        # trip is a wake-up of the event loop, and a tap's redraw makes several reads.
        async with self._committed():
            rows = await self._db.execute_fetchall(sql, params)
        return [tuple(row) for row in rows]

    async def _execute_then(
        self,
        first: str,
        first_params: Sequence[object],
        then: str,
        then_params: Sequence[object],
        send: SendAsk | None = None,
    ) -> Row | None:
        """Both statements or neither, committed, in one trip to aiosqlite's thread: a move's
        save is four statements with its BEGIN and COMMIT, and a trip each would wake the
        event loop and that thread four times (aiosqlite's `_execute` runs a function
        there, as it runs each of its own calls). `send` is not reserved: only a backend
        whose chats' pace is shared across processes is asked to."""
        if self._in_transaction():
            raise TransactionError("storage transactions do not nest")

        def save(connection: sqlite3.Connection) -> Row | None:
            connection.execute("BEGIN IMMEDIATE")
            try:
                if not connection.execute(first, first_params).rowcount:
                    connection.execute("ROLLBACK")
                    return None
                row = connection.execute(then.format(guard="WHERE 1 = 1"), then_params).fetchone()
                assert row is not None, "the statement after the save returns its row"
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
            return row

        with DATABASE_WAIT.time():
            await self._write_lock.acquire()
        try:
            row = await self._db._execute(save, self._db._conn)
        finally:
            self._write_lock.release()
        if row is None:
            return None
        return (*row, None, None)

    async def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        self._require_transaction()
        cursor = await self._db.execute(sql, params)
        return cursor.rowcount

    async def _insert(self, sql: str, params: Sequence[object] = ()) -> int:
        self._require_transaction()
        cursor = await self._db.execute(sql, params)
        assert cursor.lastrowid is not None
        return cursor.lastrowid
