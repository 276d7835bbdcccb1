"""Exactly once: an update Telegram delivers again changes nothing the second time.

Telegram sends an update again whenever it did not get its answer in time: a webhook process
died after committing, a connection dropped, a polling process was killed before its next
`getUpdates` confirmed the update. A service method whose work a second run would repeat (a
move, a new game, a challenge, a join, a hint counted, a view switched) takes the update's key
(`update_key`, made by the handler; None for calls that answer no update) and claims it inside
its own transaction, before anything else: the first delivery records its outcome together
with its changes, and any later delivery, on this process or another, finds the record and
returns the same result without changing anything.

A tap, the update that comes by far the most often, keeps no record of its own: a move that
changed its game writes the game's row anyway, and the row keeps the keys of its last
`RECENT_TAPS` moves with what each did (`first_tap`, `with_tap`). A redelivered tap finds its
key there. A tap that changed nothing is written with the game's next move (until then, the
board it would be judged on again is the same one): a copy of it that another process meets
after that move finds it too.

What an update makes the bot post into a chat (a reply, a board, a menu, a picture) is posted
by one delivery alone: the first to claim the update's posting key (`first_to_post`), in a
short transaction of its own once the update's changes are committed. A second delivery,
racing the first on another process or arriving after a restart, posts nothing; and if the
first delivery died before its changes committed, the second applies them and posts.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from cachetools import TTLCache

from bot.models import FirstOutcome
from bot.services.cache import recent_cache
from bot.storage import Storage

# Telegram keeps an update it could not deliver for 24 hours; a key is kept twice as long.
KEEP_SECONDS = 2 * 24 * 3600
# The posting key of an update is its key with this mark: claimed apart from its changes.
_POSTING = "post:"


# How many of a game's last moves keep their key: a redelivery comes within seconds, and
# the tap throttle lets a player through at 10 taps a second at most.
RECENT_TAPS = 16


def first_tap(taps: str, update_key: str | None) -> str | None:
    """What the first delivery of this tap did, when the game's row still holds its key."""
    if update_key is None:
        return None
    for line in taps.splitlines():
        key, _, outcome = line.partition(" ")
        if key == update_key:
            return outcome
    return None


def tap_line(update_key: str, outcome: str) -> str:
    """How the game's row keeps one tap: its key and what it did."""
    return f"{update_key} {outcome}"


def with_taps(taps: str, *lines: str) -> str:
    """The game's taps with these added last, the oldest beyond the limit gone."""
    return "\n".join([*taps.splitlines(), *lines][-RECENT_TAPS:])


async def claim(storage: Storage, update_key: str | None, now: float) -> FirstOutcome | None:
    """Inside the service's transaction: None to go ahead, or the first delivery's record."""
    if update_key is None:
        return None
    return await storage.claim_delivery(update_key, now)


async def record(
    storage: Storage, update_key: str | None, outcome: str, created_id: int | None = None
) -> None:
    """Keep, with the changes it goes with, what a repeat of this delivery must return."""
    if update_key is not None:
        await storage.record_delivery(update_key, outcome, created_id)


class UpdateLog:
    """Keeps the record of claimed keys bounded: a key outlives any redelivery, no more."""

    def __init__(self, storage: Storage, clock: Callable[[], float] = time.time) -> None:
        self._storage = storage
        self._clock = clock
        # Updates whose posts this process claimed: every post of one update goes out here.
        self._posting: TTLCache[str, bool] = recent_cache()

    async def first_to_post(self, update_key: str) -> bool:
        """Whether this delivery of the update is the one to post what it causes.

        Asked before each post; the first ask claims the update's posting key, and the later
        posts of the same update on this process follow that answer.
        """
        if update_key in self._posting:
            return True
        async with self._storage.transaction():
            first = await self._storage.claim_delivery(_POSTING + update_key, self._clock()) is None
        if first:
            self._posting[update_key] = True
        return first

    async def forget_old(self) -> int:
        """Drop keys no redelivery can ask for any more; how many.

        No chat's lock: the keys belong to no chat's read-modify-write, and a key this old is
        never claimed again.
        """
        async with self._storage.transaction():
            return await self._storage.forget_deliveries(self._clock() - KEEP_SECONDS)
