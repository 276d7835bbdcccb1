"""One bot process per SQLite file: an exclusive lock on a file beside the database.

A second process on the same file would poll Telegram too and fight the first over every
update. The lock is the kernel's (flock): it goes with the process however the process ends,
so a killed bot never leaves a stale lock that would refuse the next start.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from bot.storage.queries import StorageUnavailable


class DatabaseLock:
    """Held from before the database is opened until after it is closed."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = database.with_name(database.name + ".lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock now, or refuse at once: another process is running on this file."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise StorageUnavailable(f"cannot create the lock file {self.path}: {error}") from error
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StorageUnavailable(
                f"another bot process is already using {self.database} "
                "(run one process per SQLite file)"
            ) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor drops the lock
            self._fd = None
