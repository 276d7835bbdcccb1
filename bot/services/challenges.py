"""Group challenges: everyone plays the same seed, privately, until the clock runs out.

Fairness comes from the engine: a challenge stores one seed, every entry starts from it, and
spawns depend only on the seed and the moves, so equal moves mean equal tiles for everyone.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import engine
from bot.codecs import parse_challenge_payload
from bot.models import Challenge, NewChallenge, ObligationKind, StoredGame
from bot.services.locks import ChatLocks
from bot.services.outbox import Outbox
from bot.services.redelivery import claim, record
from bot.storage import Storage

MAX_OPEN_PER_GROUP = 3  # keeps card edits within a group's message budget


def challenge_subject(token: str) -> str:
    """What a challenge's commitment says its seed is for: this challenge, by its token."""
    return f"challenge:{token}"


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
        locks: ChatLocks,
        clock: Callable[[], float] = time.time,
        # 63 bits: the seed is a column of its own, and SQLite integers are signed 64-bit.
        new_seed: Callable[[], int] = lambda: secrets.randbits(63),
        outbox: Outbox | None = None,
        new_salt: Callable[[], str] = lambda: secrets.token_hex(engine.SALT_HEX_DIGITS // 2),
    ) -> None:
        self.storage = storage
        self._locks = locks
        self._clock = clock
        self._new_seed = new_seed
        self._new_salt = new_salt
        self._outbox = outbox or Outbox(storage, clock)

    async def create(
        self,
        chat_id: int,
        chat_title: str,
        language: str,
        creator_id: int,
        size: int,
        duration: int,
        update_key: str | None = None,
        reply_to: int | None = None,
    ) -> Challenge | None:
        """A new challenge, or None when the group already has too many running.

        Its card is owed to the group from the same commit (the outbox), as an answer to
        message `reply_to`. A repeated delivery gets the challenge the first one created, and
        owes nothing more: that card is on its way already.
        """
        now = self._clock()
        async with self._locks.writing(chat_id) as storage:
            first = await claim(storage, update_key, now)
            if first is not None:
                return (
                    None if first.created_id is None else await storage.challenge(first.created_id)
                )
            await storage.hold_chat(chat_id)  # processes sharing the database count in turn
            if len(await storage.open_challenges(chat_id)) >= MAX_OPEN_PER_GROUP:
                await record(storage, update_key, "full")
                return None
            token = "".join(secrets.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(8))
            seed, salt = self._new_seed(), self._new_salt()
            challenge = await storage.insert_challenge(
                NewChallenge(
                    chat_id,
                    chat_title,
                    language,
                    creator_id,
                    size,
                    seed,
                    token,
                    now + duration,
                    salt,
                    engine.commitment(salt, seed, size, challenge_subject(token)),
                ),
                now,
            )
            await self._outbox.owe(storage, ObligationKind.CARD, chat_id, challenge.id, reply_to)
            await record(storage, update_key, "created", challenge.id)
            return challenge

    async def set_card(self, challenge: Challenge, message_id: int) -> bool:
        """Remember the group message that shows the challenge's card, to edit it later.

        False when the challenge has a card already: then the message is one card too many.
        """
        async with self._locks.writing(challenge.chat_id) as storage:
            return await storage.set_challenge_message(challenge.id, message_id)

    async def withdraw(self, challenge: Challenge) -> bool:
        """Undo a challenge whose card cannot be posted (the bot left the group): nobody can
        see or join it, and it must not hold one of the group's places until it ends. False
        if it has a card or players.
        """
        async with self._locks.writing(challenge.chat_id) as storage:
            return await storage.withdraw_challenge(challenge.id)

    async def join(self, text: str, user_id: int, update_key: str | None = None) -> JoinResult:
        """Enter a challenge from its deep link; a second tap brings back the same entry.

        A repeated delivery of the same /start gets the first one's answer (JOINED, say).
        """
        parsed = parse_challenge_payload(text)
        challenge = None if parsed is None else await self.storage.challenge(parsed[0])
        if (
            challenge is None
            or parsed is None
            or not secrets.compare_digest(challenge.token, parsed[1])
        ):
            return JoinResult(JoinStatus.INVALID)
        now = self._clock()
        # The entry is played in the player's private chat, whose chat id is the user id.
        async with self._locks.writing(user_id) as storage:
            first = await claim(storage, update_key, now)
            entry = await storage.challenge_entry(challenge.id, user_id)
            if first is not None:
                return JoinResult(JoinStatus(first.outcome), challenge, entry)
            if challenge.finished or now >= challenge.ends_at:
                status = JoinStatus.ENDED
            elif entry is not None:
                status = JoinStatus.ALREADY_IN
            else:
                game = engine.new_game(challenge.size, challenge.seed, now)
                game_id = await storage.insert_game(user_id, user_id, game, now, challenge)
                entry = await storage.game(game_id)
                status = JoinStatus.JOINED
            await record(storage, update_key, status, None if entry is None else entry.id)
        return JoinResult(status, challenge, entry)

    async def finish(self, challenge: Challenge) -> Challenge | None:
        """Close the challenge once; None if it was closed already (by another run).

        The final card and the winner are owed to the group from the same commit.
        """
        async with self._locks.writing(challenge.chat_id) as storage:
            if not await storage.finish_challenge(challenge.id):
                return None
            await self._outbox.owe(
                storage, ObligationKind.FINAL_CARD, challenge.chat_id, challenge.id
            )
            await self._outbox.owe(storage, ObligationKind.WINNER, challenge.chat_id, challenge.id)
            return await storage.challenge(challenge.id)

    async def finish_overdue(self) -> int:
        """Close every open challenge whose time is up; how many this call closed.

        A challenge's end job may have found the database away: this catches up on it.
        """
        overdue = await self.storage.open_challenges(ending_by=self._clock())
        return sum([await self.finish(challenge) is not None for challenge in overdue])
