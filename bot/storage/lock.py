"""One bot process per SQLite database: an exclusive lock on the database file itself.

A second process on the same file would poll Telegram too and fight the first over every
update. The lock is taken on the file, not on its name: a symlink or a hard link to the same
database (one inode) finds it taken, where a lock beside the path given would not, and a
hard-linked second process would keep a WAL of its own and lose the other's moves. The
lock is the kernel's (flock), which SQLite's own locks (fcntl) do not touch; it goes with the
process however the process ends, so a killed bot never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from bot.logs import system_reason
from bot.storage.queries.base import StorageUnavailable


class DatabaseLock:
    """Held from before the database is opened until after it is closed."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self._fd: int | None = None

    def _open(self) -> int:
        """The database file, created empty if it is new (SQLite takes an empty file)."""
        try:
            return os.open(self.database, os.O_RDWR | os.O_CREAT, 0o644)
        except PermissionError:
            # Read-only: locked all the same, and refused with its reason when opened.
            return os.open(self.database, os.O_RDONLY)

    def acquire(self) -> None:
        """Take the lock now, or refuse at once: another process is running on this file."""
        try:
            fd = self._open()
        except OSError as error:
            raise StorageUnavailable(
                f"cannot open {self.database}: {system_reason(error)}; check that "
                "BOT_DATABASE names a file in a folder the bot can write"
            ) from error
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StorageUnavailable(
                f"another bot process is already using {self.database}: stop it first, or "
                "give this one another BOT_DATABASE (one process per SQLite file)"
            ) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor drops the lock
            self._fd = None
