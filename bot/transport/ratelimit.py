"""Flood control per chat: every send and edit within its chat's pace, 429s held per chat.

python-telegram-bot's AIORateLimiter pauses every request of the bot after any 429, so one
busy group would freeze the toasts and boards of every other player. This limiter makes each
send and edit wait for its chat's pace (the Pacer's budget, shared with the queued posts and
redraws), tells the Pacer about a 429 so that only that chat waits and slows down, and applies
no global cap but one: a broadcast's request also waits for this process's next broadcast
slot (bot/transport/broadcasts.py), right before it goes out. Requests that Telegram does not
count per chat (callback answers, reads) are never paced; a 429 on one of those holds back
the requests of its chat for its wait, or, for a request without a chat, those of its
method: a flood wait on setting the menus never holds up the long poll or the answers to
taps. Such a request is tried again after a short wait only; a longer one is its caller's to
wait out or give up on, and to say (bot/profile.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from cachetools import TLRUCache
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from bot.transport.broadcasts import BroadcastBudget
from bot.transport.budgets import retry_seconds
from bot.transport.pacer import Pacer

log = logging.getLogger(__name__)
# Seconds of a flood wait on a request that is not paced (no chat's send or edit) that this
# limiter waits out silently before it tries again; beyond, the 429 is raised to the caller.
LONGEST_QUIET_WAIT = 10.0
JSON = bool | dict[str, Any] | list[dict[str, Any]]


def paced(endpoint: str) -> bool:
    """Sending and editing messages count against a chat's flood limit; nothing else does."""
    name = endpoint.lower()
    return (name.startswith("send") and name != "sendchataction") or name.startswith("edit")


class ChatRateLimiter(BaseRateLimiter[int]):
    def __init__(
        self,
        pacer: Pacer,
        broadcasts: BroadcastBudget,
        max_retries: int = 3,
        max_tracked: int = 10_000,
    ) -> None:
        self._pacer = pacer
        self._broadcasts = broadcasts
        self._max_retries = max_retries
        # Flood waits of requests the Pacer does not pace, forgotten once over.
        self._blocked_until: TLRUCache[int | str, float] = TLRUCache(
            max_tracked, ttu=lambda _key, until, _now: until, timer=time.monotonic
        )

    async def initialize(self) -> None:
        """Nothing to set up: the Pacer keeps the budgets."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    async def _wait_if_blocked(self, key: int | str) -> None:
        while (pause := self._blocked_until.get(key, 0.0) - time.monotonic()) > 0:
            await asyncio.sleep(pause)

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, JSON]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> JSON:
        chat_id: int | None = None
        with contextlib.suppress(TypeError, ValueError):
            chat_id = int(data["chat_id"]) if "chat_id" in data else None
        in_chat = chat_id is not None and paced(endpoint)
        held = endpoint.lower() if chat_id is None else chat_id
        retries = self._max_retries if rate_limit_args is None else rate_limit_args
        for attempt in range(retries + 1):
            if in_chat:
                assert chat_id is not None
                await self._pacer.take(chat_id)
                await self._broadcasts.on_the_wire()
            else:
                await self._wait_if_blocked(held)
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as error:
                seconds = retry_seconds(error)
                if in_chat:
                    assert chat_id is not None
                    self._pacer.flood_wait(chat_id, seconds)
                else:
                    self._blocked_until[held] = max(
                        self._blocked_until.get(held, 0.0), time.monotonic() + seconds
                    )
                # A queued post or redraw goes back into its queue instead: a redraw made now
                # would show the game as it was before the wait.
                if attempt == retries or (in_chat and self._pacer.in_job()):
                    raise
                if not in_chat and seconds > LONGEST_QUIET_WAIT:
                    raise
                log.info("%s in chat %s: flood wait, retry in %.0f s", endpoint, chat_id, seconds)
        raise AssertionError("unreachable")
