"""Storage: players, games, records and challenges, in SQLite or PostgreSQL.

`Storage.open(target)` (or `open_storage(config)`) opens a SQLite file for a path and a
PostgreSQL database for a `postgresql://` URL; both run the same queries over the same
schema (bot/storage/base.py) and migrate through the same numbered steps
(bot/storage/schema.py).
"""

from bot.storage.base import Storage, StorageUnavailable, is_postgres_url, open_storage
from bot.storage.schema import SCHEMA_VERSION
from bot.storage.sqlite import SqliteStorage

__all__ = [
    "SCHEMA_VERSION",
    "SqliteStorage",
    "Storage",
    "StorageUnavailable",
    "is_postgres_url",
    "open_storage",
]
