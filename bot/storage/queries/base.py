"""What a backend provides, and the schema's migration over it: no aggregate's queries.

A backend supplies a handful of primitives (run a statement, fetch rows, insert and return the
id, open a transaction, read and write the schema version) and its dialect's few differences;
every query (one module an aggregate, beside this one) and the migration are written once over
them. Queries use `?` placeholders; PostgreSQL numbers them.

Every write runs inside `transaction()`, which the caller (a service) opens around its whole
read-modify-write; a write outside one, or a transaction inside another, raises
`TransactionError` on both backends. Reads of a game or an entry inside a transaction are
the "modify" part's input, so a backend that serves several processes locks what they read
(`_for_update`, `_serialize`): the second process's read waits for the first one's commit.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, ClassVar

from bot.models import SendAsk
from bot.storage.schema import SCHEMA_VERSION, Dialect, migrations

Row = tuple[Any, ...]


class StorageUnavailable(RuntimeError):
    """The database cannot be used: unreachable, refused, or of a newer schema."""


class TransactionError(RuntimeError):
    """Storage used against its contract: a write outside a transaction, or nested ones.

    A programming error, raised at once on both backends rather than hanging (SQLite's write
    lock is not reentrant) or committing half of a service's work on its own.
    """


class StorageBase(ABC):
    """The primitives every aggregate's queries are written with, and the schema's migration."""

    # Whether other bot processes may write the same database (PostgreSQL behind webhooks).
    shared = False
    # The two-argument scalar max and min: SQLite's max()/min(), PostgreSQL's GREATEST/LEAST.
    # Both skip NULL the way the records' queries rely on (min with a NULL is wrapped in coalesce).
    _LEAST = "min"
    _GREATEST = "max"
    # How the schema's migration steps are spelled for this backend's database.
    _dialect: ClassVar[Dialect]

    # ----- what a backend provides ------------------------------------------------------------

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def schema_version(self) -> int:
        """The schema version the database records; 0 for an empty database."""

    @abstractmethod
    async def _write_version(self, version: int) -> None:
        """Record, inside the migration's transaction, that the schema is now at `version`."""

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[None]:
        """Everything awaited inside commits together, or not at all.

        Raises TransactionError when the running task is inside one already.
        """

    @abstractmethod
    async def _fetchrow(self, sql: str, params: Sequence[object] = ()) -> Row | None: ...

    @abstractmethod
    async def _fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]: ...

    @abstractmethod
    async def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one writing statement inside the task's transaction; the rows it changed."""

    @abstractmethod
    async def _insert(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one INSERT, inside the task's transaction, into a table with an `id`; the id."""

    @abstractmethod
    async def _execute_then(
        self,
        first: str,
        first_params: Sequence[object],
        then: str,
        then_params: Sequence[object],
        send: SendAsk | None = None,
    ) -> Row | None:
        """Outside any transaction: run the UPDATE `first` and, if it changed a row, the
        INSERT ... SELECT ... RETURNING `then` (its `{guard}` the SELECT's WHERE), both or
        neither; None if `first` changed no row, else the row `then` returned, followed by
        the chat's send reserved with them (`send`: seconds until it may go and until the
        chat's flood wait ends, as `reserve_send`), or two NULLs.

        A move's save, the hottest write there is: each backend makes it one trip of its
        own (one statement on PostgreSQL, which also reserves the send; one call on
        SQLite's thread, which reserves none, its chats' pace being this process's alone).
        """

    async def _write_then_read(
        self,
        write: str,
        write_params: Sequence[object],
        read: str,
        read_params: Sequence[object],
    ) -> Row:
        """Outside any transaction: run the writing statement `write`, then the one-row `read`,
        committed together; the read's row. The read must not depend on what `write` changed
        (a backend that makes the two one statement reads from the snapshot before it).

        Here a transaction of its own; a backend that pays a round trip per statement makes
        the two one statement.
        """
        async with self.transaction():
            await self._execute(write, write_params)
            row = await self._fetchrow(read, read_params)
        assert row is not None
        return row

    def _for_update(self) -> str:
        """A row-lock clause for reads inside a transaction (PostgreSQL: FOR UPDATE)."""
        return ""

    async def _serialize(self, key: str) -> None:
        """Inside a transaction: wait for, then hold until commit, the lock named `key`.

        Guards a read-then-insert (one running game per chat, one entry per challenge, the
        schema's migration), where there is no row yet to lock. SQLite needs none: its writers
        are serialised already.
        """
        return

    async def hold_chat(self, chat_id: int) -> None:
        """Inside a transaction: keep every other process's `hold_chat` of the chat waiting
        until this one commits (a count checked, then a row added: the group's challenges)."""
        await self._serialize(f"chat:{chat_id}")

    async def ping(self, timeout: float) -> None:
        """Raise `StorageUnavailable` unless the database answers a trivial query within
        `timeout` seconds, the wait for a connection included: what a health check asks."""
        try:
            await asyncio.wait_for(self._fetchrow("SELECT 1"), timeout)
        except TimeoutError:
            raise StorageUnavailable(f"the database did not answer within {timeout:g} s") from None

    @asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """Whether this process got `name` for the block, no process holding it elsewhere.

        Never waits. A SQLite file has one process, whose own bookkeeping decides: True.
        """
        yield True

    # ----- the schema -------------------------------------------------------------------------

    async def _migrate(self) -> None:
        """Run the migration steps the database lacks, all in one transaction, or refuse it.

        Processes that start together take turns (PostgreSQL: the lock `_serialize` takes;
        SQLite: the write transaction itself): the first one migrates, the others find the
        work done. A database that a newer release has migrated is refused, not used by code
        that does not know its schema.
        """
        async with self.transaction():
            await self._serialize("migrate")
            version = await self.schema_version()
            if version > SCHEMA_VERSION:
                raise StorageUnavailable(
                    f"database schema {version} is newer than this bot2048 (schema "
                    f"{SCHEMA_VERSION}): upgrade bot2048 to the release that wrote it"
                )
            steps = migrations(self._dialect)
            for step in range(version, SCHEMA_VERSION):
                for statement in steps[step]:
                    await self._execute(statement)
                await self._write_version(step + 1)
