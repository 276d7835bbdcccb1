"""What services keep in memory: only what recent players touched, and a bounded amount.

A cached player, game or chat spares a database read (or write) on the next update, which
matters only while someone is playing. Entries go after a quarter of an hour without use, and
beyond ten thousand the least recently used go first, so memory levels off however many
distinct players come by; a forgotten entry costs one read when its player comes back.

A copy of what the database holds is right only while nobody else writes there: with several
processes on one database, the composition root hands the services `no_cache` for their
copies instead, and every read goes to the database.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from cachetools import TTLCache

RECENT_SECONDS = 15 * 60
RECENT_LIMIT = 10_000


def recent_cache() -> TTLCache[Any, Any]:
    return TTLCache(RECENT_LIMIT, ttl=RECENT_SECONDS)


class NoCache(MutableMapping[Any, Any]):
    """A cache that keeps nothing: every lookup misses, every store is dropped."""

    def __getitem__(self, key: object) -> Any:
        raise KeyError(key)

    def __setitem__(self, key: object, value: object) -> None:
        return

    def __delitem__(self, key: object) -> None:
        raise KeyError(key)

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __len__(self) -> int:
        return 0


def no_cache() -> NoCache:
    return NoCache()


# How a service gets a cache for its copies of saved state: `recent_cache` or `no_cache`.
CacheFactory = Callable[[], MutableMapping[Any, Any]]
