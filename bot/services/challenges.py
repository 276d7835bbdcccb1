"""Group challenges: everyone plays the same seed, privately, until the clock runs out.

Fairness comes from the engine: a challenge stores one seed, every entry starts from it, and
spawns depend only on the seed and the moves, so equal moves mean equal tiles for everyone.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import engine
from bot.models import Challenge, StoredGame
from bot.storage import Storage

DEFAULT_DURATION = 24 * 3600
MIN_DURATION = 60
MAX_DURATION = 7 * 24 * 3600
MAX_OPEN_PER_GROUP = 3  # keeps card edits within a group's message budget
_UNITS = {"m": 60, "h": 3600, "d": 86400}
_PAYLOAD = re.compile(r"c([1-9]\d{0,14})_([A-Za-z0-9]{8})")


class ChallengeArgsError(ValueError):
    """`/challenge` arguments that cannot be understood or are out of range."""


def parse_challenge_args(args: list[str]) -> tuple[int, int]:
    """`/challenge`, `/challenge 5`, `/challenge 2h`, `/challenge 6 3d` → (size, seconds)."""
    size, duration = engine.SIZES[0], DEFAULT_DURATION
    if len(args) > 2:
        raise ChallengeArgsError("too many arguments")
    for word in (w.lower().replace("×", "x") for w in args):
        if match := re.fullmatch(r"([456])(?:x\1)?", word):
            size = int(match.group(1))
        elif match := re.fullmatch(r"(\d{1,9})([mhd])", word):
            duration = int(match.group(1)) * _UNITS[match.group(2)]
            if not MIN_DURATION <= duration <= MAX_DURATION:
                raise ChallengeArgsError("duration out of range")
        else:
            raise ChallengeArgsError(f"not a size or duration: {word!r}")
    return size, duration


def payload(challenge: Challenge) -> str:
    """The `/start` deep-link payload: short, URL-safe, and not guessable from the id alone."""
    return f"c{challenge.id}_{challenge.token}"


def parse_payload(text: str) -> tuple[int, str] | None:
    match = _PAYLOAD.fullmatch(text)
    return None if match is None else (int(match.group(1)), match.group(2))


class JoinStatus(StrEnum):
    JOINED = "joined"
    ALREADY_IN = "already_in"
    ENDED = "ended"
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class JoinResult:
    status: JoinStatus
    challenge: Challenge | None = None
    entry: StoredGame | None = None


class ChallengeService:
    def __init__(
        self,
        storage: Storage,
        clock: Callable[[], float] = time.time,
        # 63 bits: the seed is a column of its own, and SQLite integers are signed 64-bit.
        new_seed: Callable[[], int] = lambda: secrets.randbits(63),
    ) -> None:
        self.storage = storage
        self._clock = clock
        self._new_seed = new_seed

    async def create(
        self,
        chat_id: int,
        chat_title: str,
        language: str,
        creator_id: int,
        size: int,
        duration: int,
    ) -> Challenge | None:
        """A new challenge, or None when the group already has too many running."""
        open_here = [c for c in await self.storage.open_challenges() if c.chat_id == chat_id]
        if len(open_here) >= MAX_OPEN_PER_GROUP:
            return None
        now = self._clock()
        token = "".join(secrets.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(8))
        return await self.storage.insert_challenge(
            chat_id,
            chat_title,
            language,
            creator_id,
            size,
            self._new_seed(),
            token,
            now,
            now + duration,
        )

    async def join(self, text: str, user_id: int) -> JoinResult:
        """Enter a challenge from its deep link; a second tap brings back the same entry."""
        parsed = parse_payload(text)
        challenge = None if parsed is None else await self.storage.challenge(parsed[0])
        if (
            challenge is None
            or parsed is None
            or not secrets.compare_digest(challenge.token, parsed[1])
        ):
            return JoinResult(JoinStatus.INVALID)
        now = self._clock()
        async with self.storage.transaction():
            entry = await self.storage.challenge_entry(challenge.id, user_id)
            if entry is not None:
                return JoinResult(JoinStatus.ALREADY_IN, challenge, entry)
            if challenge.finished or now >= challenge.ends_at:
                return JoinResult(JoinStatus.ENDED, challenge)
            game = engine.new_game(challenge.size, challenge.seed, now)
            game_id = await self.storage.insert_game(user_id, user_id, game, now, challenge)
        entry = await self.storage.game(game_id)
        return JoinResult(JoinStatus.JOINED, challenge, entry)

    async def finish(self, challenge_id: int) -> Challenge | None:
        """Close the challenge once; None if it was closed already (by another run)."""
        if not await self.storage.finish_challenge(challenge_id):
            return None
        return await self.storage.challenge(challenge_id)
