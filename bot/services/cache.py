"""What services keep in memory: only what recent players touched, and a bounded amount.

A cached player, game or chat spares a database read (or write) on the next update, which
matters only while someone is playing. Entries go after a quarter of an hour without use, and
beyond ten thousand the least recently used go first, so memory levels off however many
distinct players come by; a forgotten entry costs one read when its player comes back.
"""

from __future__ import annotations

from typing import Any

from cachetools import TTLCache

RECENT_SECONDS = 15 * 60
RECENT_LIMIT = 10_000


def recent_cache() -> TTLCache[Any, Any]:
    return TTLCache(RECENT_LIMIT, ttl=RECENT_SECONDS)
