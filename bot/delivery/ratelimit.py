"""Flood control that holds back only the chat Telegram complained about.

python-telegram-bot's AIORateLimiter pauses every request of the bot after any 429, so one
busy group would freeze the toasts and boards of every other player. This limiter honours
`retry_after` per chat (requests without a chat, such as callback answers, share one key),
paces each group at Telegram's ~20 messages a minute, and applies no global cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from aiolimiter import AsyncLimiter
from cachetools import TLRUCache, TTLCache
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

log = logging.getLogger(__name__)
JSON = bool | dict[str, Any] | list[dict[str, Any]]


class ChatRateLimiter(BaseRateLimiter[int]):
    def __init__(
        self,
        group_max_rate: float = 20,
        group_period: float = 60,
        max_retries: int = 3,
        max_tracked_groups: int = 10_000,
    ) -> None:
        self._group_max_rate = group_max_rate
        self._group_period = group_period
        self._max_retries = max_retries
        # A group whose limiter has been idle for a whole period has a full bucket again, no
        # different from one never seen; a flood wait is forgotten once it is over.
        self._group_limiters: TTLCache[int, AsyncLimiter] = TTLCache(
            max_tracked_groups, ttl=group_period, timer=time.monotonic
        )
        self._blocked_until: TLRUCache[int | None, float] = TLRUCache(
            max_tracked_groups, ttu=lambda _key, until, _now: until, timer=time.monotonic
        )

    async def initialize(self) -> None:
        """Nothing to set up: limiters are created per group on first use."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def _group_limiter(self, chat_id: int) -> AsyncLimiter:
        limiter = self._group_limiters.get(chat_id)
        if limiter is None:
            limiter = AsyncLimiter(self._group_max_rate, self._group_period)
        # Stored again on every use: the time to live counts from the group's last message.
        self._group_limiters[chat_id] = limiter
        return limiter

    async def _wait_if_blocked(self, key: int | None) -> None:
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
        retries = self._max_retries if rate_limit_args is None else rate_limit_args
        for attempt in range(retries + 1):
            await self._wait_if_blocked(chat_id)
            try:
                if chat_id is not None and chat_id < 0:
                    async with self._group_limiter(chat_id):
                        return await callback(*args, **kwargs)
                return await callback(*args, **kwargs)
            except RetryAfter as error:
                if attempt == retries:
                    raise
                wait = error.retry_after
                pause = (wait.total_seconds() if isinstance(wait, timedelta) else wait) + 0.1
                log.info("%s in chat %s: flood limit, retrying in %.1f s", endpoint, chat_id, pause)
                self._blocked_until[chat_id] = max(
                    self._blocked_until.get(chat_id, 0.0), time.monotonic() + pause
                )
        raise AssertionError("unreachable")
