"""The one rule for writing: a service takes the chat's lock, then runs one transaction
(or, for a move, one statement that commits on its own: `moving`).

The lock orders everything this process does to one chat (taps, hints, jobs that end a
challenge) without waiting on the database; the transaction makes each service call commit
whole or not at all. Handlers never see either: they call a service method and get back what
was committed.
"""

from __future__ import annotations

import asyncio
import itertools
import weakref
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from cachetools import TTLCache

from bot.services.cache import recent_cache
from bot.storage import Storage


class ChatLocks:
    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        # A lock lives as long as someone holds or waits for it, so idle chats cost nothing.
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        # Per chat, the number of the last write this process committed there: something read
        # after that write is still current while the number stays the same. A chat forgotten
        # here reads as 0, which no write has, so nothing passes for current by mistake.
        self._written: TTLCache[int, int] = recent_cache()
        self._writes = itertools.count(1)

    def generation(self, chat_id: int) -> int:
        """A number that changes with every write this process commits in the chat."""
        return self._written.get(chat_id, 0)

    def _lock(self, chat_id: int) -> asyncio.Lock:
        lock = self._locks.get(chat_id)
        if lock is None:
            lock = self._locks[chat_id] = asyncio.Lock()
        return lock

    @asynccontextmanager
    async def writing(self, *chat_ids: int) -> AsyncIterator[Storage]:
        """Hold the chat's lock and one open transaction; yields the storage to write with.

        Work that spans chats (a group moving to a new id) holds each one's lock, taken in
        one order everywhere, so two such calls never wait for each other in a circle.
        """
        async with AsyncExitStack() as held:
            for chat_id in sorted(set(chat_ids)):
                await held.enter_async_context(self._lock(chat_id))
            async with self._storage.transaction():
                yield self._storage
            number = next(self._writes)  # committed, and still under the chats' locks
            for chat_id in chat_ids:
                self._written[chat_id] = number

    @asynccontextmanager
    async def moving(self, chat_id: int) -> AsyncIterator[Storage]:
        """Hold the chat's lock, no transaction: for a read, then one write that commits on
        its own and is saved only onto what was read (`Storage.save_move`).

        A move pays no round trips for a transaction's start and end, and holds no row lock
        while the engine runs: another process's move in between makes the write change
        nothing, and the caller reads again.
        """
        async with self._lock(chat_id):
            yield self._storage
            self._written[chat_id] = next(self._writes)
