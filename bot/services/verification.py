"""A game's record for anyone to check: what /record may send of the player's latest game.

A seed is shown only once nobody can use it any more: a daily's after its day, a challenge's
after its end, a game of one's own once it is over. Until then the answer says when it
will be, so the record never hands out the future of a game still being played.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import engine
from bot.models import StoredGame
from bot.services.challenges import challenge_subject
from bot.storage import Storage


class RecordStatus(StrEnum):
    READY = "ready"  # `data` is the record
    NO_GAME = "no_game"  # no game with a move yet
    NO_LOG = "no_log"  # a game saved before actions were logged: it cannot be replayed
    PLAYING = "playing"  # a game of one's own, still going
    DAILY_RUNNING = "daily_running"  # revealed at `reveal_at`, the day's end
    CHALLENGE_RUNNING = "challenge_running"  # revealed at `reveal_at`, the challenge's end


@dataclass(frozen=True, slots=True)
class RecordAnswer:
    status: RecordStatus
    stored: StoredGame | None = None
    data: dict[str, Any] | None = None
    reveal_at: float | None = None


class VerificationService:
    def __init__(self, storage: Storage, clock: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self._clock = clock

    async def latest_record(self, user_id: int) -> RecordAnswer:
        """The record of the player's latest game, or why it cannot be sent yet."""
        stored = await self.storage.latest_game(user_id, user_id)
        if stored is None:
            return RecordAnswer(RecordStatus.NO_GAME)
        if stored.actions is None:
            return RecordAnswer(RecordStatus.NO_LOG, stored)
        now = self._clock()
        if stored.daily_id is not None:
            daily = await self.storage.daily(stored.daily_id)
            assert daily is not None
            if now < daily.ends_at:
                return RecordAnswer(RecordStatus.DAILY_RUNNING, stored, reveal_at=daily.ends_at)
            return self._ready(stored, daily.salt, daily.day, daily.commitment)
        if stored.challenge_id is not None:
            challenge = await self.storage.challenge(stored.challenge_id)
            assert challenge is not None
            if not challenge.finished and now < challenge.ends_at:
                reveal = challenge.ends_at
                return RecordAnswer(RecordStatus.CHALLENGE_RUNNING, stored, reveal_at=reveal)
            if challenge.salt is None or challenge.commitment is None:
                return self._ready(stored)
            subject = challenge_subject(challenge.token)
            return self._ready(stored, challenge.salt, subject, challenge.commitment)
        if not stored.game.over:
            return RecordAnswer(RecordStatus.PLAYING, stored)
        return self._ready(stored)

    def _ready(
        self,
        stored: StoredGame,
        salt: str | None = None,
        subject: str | None = None,
        committed: str | None = None,
    ) -> RecordAnswer:
        assert stored.actions is not None
        data = engine.record(
            stored.game, stored.actions, salt=salt, subject=subject, committed=committed
        )
        return RecordAnswer(RecordStatus.READY, stored, data)
