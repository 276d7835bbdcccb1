"""PostgreSQL storage (asyncpg): one database shared by any number of bot processes.

`transaction()` takes a connection from the pool and binds it to the running task (a context
variable), so every query the task makes inside the block runs on that connection, in that
transaction; queries outside a transaction use any pooled connection and commit on their own.

Safety across processes comes from the database, not from the process:

- inside a transaction, reading a game (`game`, `active_game`, `challenge_entry`) takes its
  row lock (`SELECT ... FOR UPDATE`), so a second process tapping the same game waits for the
  first one's commit and then reads the game as that commit left it: no move is lost or
  applied twice;
- where the read may find no row (a new game, joining a challenge), a transaction-scoped
  advisory lock on the key stands in for the missing row lock;
- `finish_challenge` is `UPDATE ... WHERE finished = 0`: the losing process waits on the row
  lock, then changes no row and learns it lost.

The schema version is recorded in a `schema_version` table; the migration runs under an
advisory lock (`_serialize`), so processes that start together migrate once.
"""

from __future__ import annotations

import asyncio
import re
import urllib.parse
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

import asyncpg

from bot.storage.queries import Row, Storage, TransactionError
from bot.storage.schema import POSTGRES

DEFAULT_POOL_SIZE = 10
# Advisory lock keys are 64-bit numbers shared by everything in the database: hash a prefixed
# name, so the bot's keys stay apart from any other application's.
_LOCK_PREFIX = "bot2048:"

# The transaction the running task is inside, if any: (storage, connection, task). Tasks
# started inside inherit the variable; the task check keeps them off the connection.
_BOUND: ContextVar[tuple[PostgresStorage, asyncpg.Connection, asyncio.Task[Any] | None] | None] = (
    ContextVar("bot2048_postgres_transaction", default=None)
)


@lru_cache(maxsize=256)
def _numbered(sql: str, arguments: int) -> str:
    """`?` placeholders as PostgreSQL's `$1, $2, ...`.

    Every `?` is taken for a placeholder, so the queries must hold no other (in a string, or
    a jsonb operator): one would show up here as more `?` than arguments.
    """
    assert sql.count("?") == arguments, f"{arguments} arguments for {sql.count('?')} `?`: {sql}"
    counter = iter(range(1, arguments + 1))
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


def _rowcount(status: str) -> int:
    """The row count at the end of a command tag: "UPDATE 1", "INSERT 0 1", "DELETE 0"."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


def describe_url(url: str) -> str:
    """A database URL fit for a log line: host, port and database, never the password."""
    parts = urllib.parse.urlsplit(url)
    where = parts.hostname or "local socket"
    if parts.port:
        where += f":{parts.port}"
    return f"PostgreSQL {where}{parts.path or '/'}"


class PostgresStorage(Storage):
    shared = True
    _dialect = POSTGRES
    _GREATEST = "GREATEST"
    _LEAST = "LEAST"

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        self._pool = pool
        self._url = url

    @classmethod
    async def connect(cls, url: str, pool_size: int = DEFAULT_POOL_SIZE) -> PostgresStorage:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size)
        storage = cls(pool, url)
        try:
            await storage._migrate()
        except BaseException:
            await pool.close()
            raise
        return storage

    def __repr__(self) -> str:
        return describe_url(self._url)

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self._pool.close(), timeout=10)
        except TimeoutError:
            self._pool.terminate()

    async def schema_version(self) -> int:
        # An empty database has no version table yet: `_write_version` creates it.
        (exists,) = await self._fetchrow("SELECT to_regclass('schema_version') IS NOT NULL")
        if not exists:
            return 0
        (version,) = await self._fetchrow("SELECT coalesce(max(version), 0) FROM schema_version")
        return version

    async def _write_version(self, version: int) -> None:
        await self._execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            "version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        await self._execute("INSERT INTO schema_version (version) VALUES (?)", (version,))

    def _connection(self) -> asyncpg.Connection | None:
        bound = _BOUND.get()
        if bound is None or bound[0] is not self or bound[2] is not asyncio.current_task():
            return None
        return bound[1]

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        if self._connection() is not None:
            raise TransactionError("storage transactions do not nest")
        async with self._pool.acquire() as connection, connection.transaction():
            token = _BOUND.set((self, connection, asyncio.current_task()))
            try:
                yield
            finally:
                _BOUND.reset(token)

    def _for_update(self) -> str:
        return " FOR UPDATE" if self._connection() is not None else ""

    async def _serialize(self, key: str) -> None:
        connection = self._connection()
        if connection is not None:
            await connection.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", _LOCK_PREFIX + key
            )

    async def _fetchrow(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        target = self._connection() or self._pool
        row = await target.fetchrow(_numbered(sql, len(params)), *params)
        return None if row is None else tuple(row)

    async def _fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        target = self._connection() or self._pool
        return [tuple(row) for row in await target.fetch(_numbered(sql, len(params)), *params)]

    def _writer(self) -> asyncpg.Connection:
        connection = self._connection()
        if connection is None:
            raise TransactionError("storage writes run inside transaction()")
        return connection

    async def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        return _rowcount(await self._writer().execute(_numbered(sql, len(params)), *params))

    async def _insert(self, sql: str, params: Sequence[object] = ()) -> int:
        return await self._writer().fetchval(_numbered(sql, len(params)) + " RETURNING id", *params)
