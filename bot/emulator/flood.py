"""Telegram's flood control: per chat, one token bucket for every message sent or edited.

Telegram documents about one message a second in a chat, short bursts above that, and at
most 20 messages a minute in a group. Past that the Bot API answers 429 "Too Many Requests:
retry after N" with ``parameters.retry_after``, and every send and edit in that chat fails
the same way until the N seconds have passed. Callback answers are never limited. A bot
that only ever met an emulator without these limits would learn about them from its users.

Telegram also limits what a bot sends across all its chats: about 30 messages a second,
short bursts above that tolerated. That limit is an option (``bot_per_second``), off in
``TELEGRAM_LIMITS`` and on in ``BOT_WIDE_LIMITS``: a bot's answers to dozens of players
tapping at once go above it in normal play (benchmarks/pace.py's 50 players edit about 40
boards a second), and Telegram is not known to refuse those; what a bot sends on its own at
once (a midnight's broadcasts) is what the option checks.

The model keeps one bucket per chat: ``burst`` messages at once, refilled at the chat's
pace, and with ``bot_per_second`` one for the bot: ``bot_burst`` at once, refilled at that
rate. A message the bot's bucket refuses gets the 429, and its chat the flood wait, as a
chat's own would. Its clock is injectable, so a test can let a minute of flood wait pass at
once; and a test can force a flood wait on one chat, which applies whether or not the limits
are on.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import too_many_requests
from .world import World


@dataclass(frozen=True, slots=True)
class FloodLimits:
    """How much one chat takes before Telegram answers 429.

    Telegram does not publish its burst size; 8 is a few more than a careful bot uses, so
    a bot that stays inside 5 never meets a 429 from network jitter alone. ``retry_after``
    fixes the flood wait every 429 imposes; ``None`` waits until one message fits again.
    ``bot_per_second``: how many messages a second the bot sends across all chats, after a
    burst of ``bot_burst``; ``None`` sets no such limit.
    """

    burst: float = 8.0
    private_per_second: float = 1.0
    group_per_minute: float = 20.0
    retry_after: int | None = None
    bot_per_second: float | None = None
    bot_burst: float = 10.0

    def __post_init__(self) -> None:
        if self.burst < 1 or self.private_per_second <= 0 or self.group_per_minute <= 0:
            raise ValueError("a chat takes at least one message, at a positive rate")
        if self.retry_after is not None and self.retry_after < 1:
            raise ValueError("retry_after is a whole number of seconds, at least 1")
        if self.bot_burst < 1 or (self.bot_per_second is not None and self.bot_per_second <= 0):
            raise ValueError("the bot takes at least one message, at a positive rate")


TELEGRAM_LIMITS = FloodLimits()
# Telegram's limits with its bot-wide one: about 30 messages a second in all chats together.
BOT_WIDE_LIMITS = FloodLimits(bot_per_second=30.0)


def limited(method: str) -> bool:
    """Sending and editing messages count; callback answers, reads and chat actions do not."""
    name = method.lower()
    return (name.startswith("send") and name != "sendchataction") or name.startswith("edit")


@dataclass(slots=True)
class _Chat:
    tokens: float
    updated: float
    blocked_until: float = float("-inf")


class FloodControl:
    """The flood limits of every chat, switchable at run time (``on``/``off``/``block``)."""

    def __init__(
        self,
        world: World,
        limits: FloodLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._world = world
        self._limits = limits
        self.clock = clock
        self._chats: dict[int, _Chat] = {}
        self._bot = _Chat(limits.bot_burst if limits else 0.0, clock())

    @property
    def limits(self) -> FloodLimits | None:
        """The limits in force, or None when only forced flood waits apply."""
        return self._limits

    def on(self, limits: FloodLimits = TELEGRAM_LIMITS) -> None:
        """Enforce ``limits`` from now on; every chat starts with a full bucket."""
        self._limits = limits
        self._chats = {
            chat_id: _Chat(limits.burst, self.clock(), state.blocked_until)
            for chat_id, state in self._chats.items()
            if state.blocked_until > self.clock()
        }
        self._bot = _Chat(limits.bot_burst, self.clock())

    def off(self) -> None:
        """No limits from now on (flood waits already imposed or forced still run out)."""
        self._limits = None

    def block(self, chat_id: int, seconds: int) -> None:
        """Force a flood wait: every send and edit in the chat gets 429 for ``seconds``."""
        if seconds < 1:
            raise ValueError("a flood wait lasts at least one second")
        state = self._state(chat_id)
        state.blocked_until = max(state.blocked_until, self.clock() + seconds)

    def remaining(self, chat_id: int) -> float:
        """Seconds of flood wait left in the chat (0 when it may send)."""
        state = self._chats.get(chat_id)
        return max(0.0, state.blocked_until - self.clock()) if state else 0.0

    def admit(self, method: str, params: dict[str, Any]) -> None:
        """Take one message from the chat's bucket, or raise Telegram's 429 for it."""
        chat_id = params.get("chat_id")
        if not limited(method) or not isinstance(chat_id, int):
            return
        chat = self._world.chats.get(chat_id)
        if chat is None:
            return  # the method answers "chat not found"
        now = self.clock()
        state = self._state(chat_id)
        if state.blocked_until > now:
            raise too_many_requests(max(1, math.ceil(state.blocked_until - now)))
        limits = self._limits
        if limits is None:
            return
        per_second = (
            limits.private_per_second if chat.type == "private" else limits.group_per_minute / 60
        )
        state.tokens = min(limits.burst, state.tokens + (now - state.updated) * per_second)
        state.updated = now
        if state.tokens < 1:
            self._refuse(state, limits, (1 - state.tokens) / per_second)
        if limits.bot_per_second is not None:
            bot = self._bot
            bot.tokens = min(
                limits.bot_burst, bot.tokens + (now - bot.updated) * limits.bot_per_second
            )
            bot.updated = now
            if bot.tokens < 1:
                self._refuse(state, limits, (1 - bot.tokens) / limits.bot_per_second)
            bot.tokens -= 1
        state.tokens -= 1

    def _refuse(self, state: _Chat, limits: FloodLimits, seconds: float) -> None:
        """The 429 for a message over a bucket that fits one again in `seconds`: the chat is
        held back for its wait."""
        wait = limits.retry_after or max(1, math.ceil(seconds))
        state.blocked_until = self.clock() + wait
        raise too_many_requests(wait)

    def _state(self, chat_id: int) -> _Chat:
        state = self._chats.get(chat_id)
        if state is None:
            burst = self._limits.burst if self._limits else 0.0
            state = self._chats[chat_id] = _Chat(burst, self.clock())
        return state
