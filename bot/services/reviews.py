"""Reviews of finished games: which game may be reviewed now, and the review, made once.

A review replays the game with the solver (engine/solver/review.py), seconds of CPU for a
long game, so it runs in the picture pool, in a place of the picture queue claimed first:
one review per player at a time, and no more pictures of any kind waiting than the queue
holds (`workers.RENDERS_QUEUED`). A review depends only on the game's seed and actions, so
the same game is reviewed once and kept (`REVIEWS_KEPT` of them, the least recent dropped).

A running challenge's entry is not reviewed before the challenge ends, nor a daily before
its day ends: the review shows the solver's moves on positions that everyone else in the
challenge or the daily is still to meet.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from cachetools import LRUCache

from bot.models import Challenge, StoredGame
from bot.services.workers import RenderSlot, WorkerPool
from bot.storage import Storage
from engine.solver import GameReview, review_game

# Reviews kept in memory: a few hundred bytes each (three positions and a few numbers).
REVIEWS_KEPT = 512


class ReviewStatus(StrEnum):
    READY = "ready"  # `stored` may be reviewed now
    NO_GAME = "no_game"  # no game with a move yet
    NO_LOG = "no_log"  # saved before actions were logged: it cannot be replayed
    PLAYING = "playing"  # still going, and no earlier game is finished either
    CHALLENGE_RUNNING = "challenge_running"  # reviewed once `challenge` has ended
    DAILY_RUNNING = "daily_running"  # reviewed at `reveal_at`, the day's end
    NOT_YOURS = "not_yours"  # a button naming someone else's game, or none at all
    STALE = "stale"  # a button for the game as it stood before an undo


@dataclass(frozen=True, slots=True)
class ReviewAccess:
    status: ReviewStatus
    stored: StoredGame | None = None
    challenge: Challenge | None = None
    reveal_at: float | None = None


def review_slot_key(user_id: int) -> str:
    """A player's place in the picture queue for a review: apart from their cards and
    replays, so a review does not wait for a replay to be sent, nor refuse one."""
    return f"review:{user_id}"


class ReviewService:
    def __init__(
        self, storage: Storage, workers: WorkerPool, clock: Callable[[], float] = time.time
    ) -> None:
        self.storage = storage
        self._workers = workers
        self._clock = clock
        self._kept: LRUCache[tuple[int, int, str], GameReview] = LRUCache(REVIEWS_KEPT)

    def now(self) -> float:
        """The time the access rules go by: a running daily's time left is counted from it."""
        return self._clock()

    async def latest(self, user_id: int) -> ReviewAccess:
        """`/review`: the player's latest game if it is finished, else the latest finished."""
        stored = await self.storage.latest_game(user_id, user_id)
        if stored is None:
            return ReviewAccess(ReviewStatus.NO_GAME)
        access = await self._check(stored)
        if access.status is ReviewStatus.PLAYING:
            closed = await self.storage.latest_closed_game(user_id)
            if closed is not None:
                return await self._check(closed)
        return access

    async def tapped(self, user_id: int, game_id: int, actions: int) -> ReviewAccess:
        """A 🔎 tap: the game it names, if it is the player's and still as the button saw it."""
        stored = await self.storage.game(game_id)
        if stored is None or stored.owner_id != user_id:
            return ReviewAccess(ReviewStatus.NOT_YOURS)
        if stored.actions is not None and len(stored.actions) != actions:
            return ReviewAccess(ReviewStatus.STALE, stored)
        return await self._check(stored)

    async def _check(self, stored: StoredGame) -> ReviewAccess:
        """Whether `stored` may be reviewed now: finished, logged, and its secret kept."""
        if stored.actions is None:
            return ReviewAccess(ReviewStatus.NO_LOG, stored)
        now = self._clock()
        ended = False
        if stored.challenge_id is not None:
            challenge = await self.storage.challenge(stored.challenge_id)
            assert challenge is not None
            if not challenge.finished and now < challenge.ends_at:
                return ReviewAccess(ReviewStatus.CHALLENGE_RUNNING, stored, challenge)
            ended = True
        if stored.daily_id is not None:
            daily = await self.storage.daily(stored.daily_id)
            assert daily is not None
            if now < daily.ends_at:
                return ReviewAccess(ReviewStatus.DAILY_RUNNING, stored, reveal_at=daily.ends_at)
            ended = True
        if not (stored.game.over or ended or not stored.active):
            return ReviewAccess(ReviewStatus.PLAYING, stored)
        return ReviewAccess(ReviewStatus.READY, stored)

    def claim(self, user_id: int) -> RenderSlot:
        """The player's place in the picture queue for a review; raises Busy (their review
        is being made) or Crowded (the queue is full) at once."""
        return self._workers.claim(review_slot_key(user_id))

    async def review(self, stored: StoredGame) -> GameReview:
        """The game's review, from memory or made in the picture pool (in the caller's slot)."""
        assert stored.actions is not None
        key = (stored.game.size, stored.game.seed, stored.actions)
        kept = self._kept.get(key)
        if kept is not None:
            return kept
        game = stored.game
        made = await self._workers.render(
            review_slot_key(stored.owner_id), review_game, game.size, game.seed, stored.actions
        )
        self._kept[key] = made
        return made
