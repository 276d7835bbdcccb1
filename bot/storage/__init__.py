"""Storage: players, games, records and challenges, in SQLite or PostgreSQL.

`open_storage(target)` opens a SQLite file for a path and a PostgreSQL database for a
`postgresql://` URL. Both backends run the same queries (bot/storage/queries/, a module an
aggregate) over the same schema, migrated through the same numbered steps (bot/storage/schema.py).
A backend's module, and with it its database driver, is imported only when a database of its
kind is opened.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Awaitable
from pathlib import Path

from bot.storage.queries import Storage
from bot.storage.queries.base import StorageUnavailable, TransactionError
from bot.storage.schema import SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "Storage",
    "StorageUnavailable",
    "TransactionError",
    "open_storage",
]


async def open_storage(
    target: str | os.PathLike[str], *, pool_size: int | None = None, wait: float | None = None
) -> Storage:
    """A SQLite file (a path) or a PostgreSQL database (a postgresql:// URL), migrated.

    Whatever stops the database from being used (unreachable, refused, unreadable) is raised
    as `StorageUnavailable`, with a message naming the database but never its password. For
    PostgreSQL, `pool_size` connections at most, and a query waits `wait` seconds at most
    for one of them.
    """
    connect: Awaitable[Storage]
    if isinstance(target, str) and target.startswith(("postgresql://", "postgres://")):
        import asyncpg

        from bot.storage.postgres import PostgresStorage, cannot_open

        url = target
        connect = PostgresStorage.connect(url, pool_size=pool_size, wait=wait)
        driver_errors: tuple[type[Exception], ...] = (
            asyncpg.PostgresError,
            asyncpg.InterfaceError,
        )

        def refused(error: Exception) -> StorageUnavailable:
            return cannot_open(url, error)
    else:
        from bot.storage.sqlite import SqliteStorage

        path = Path(target)
        connect = SqliteStorage.connect(path)
        driver_errors = (sqlite3.Error,)

        def refused(error: Exception) -> StorageUnavailable:
            return StorageUnavailable(
                f"cannot open the database (SQLite {path}): {error.__class__.__name__}: "
                f"{error}; check that BOT_DATABASE names a file in a folder the bot can write"
            )

    try:
        return await connect
    except StorageUnavailable:
        raise
    except (OSError, TimeoutError, *driver_errors) as error:
        raise refused(error) from error
