"""What the bot's calls to Telegram come to, seen where every one of them passes.

Every Bot API request (getUpdates included) goes through `WatchedRequest`, which notes
whether Telegram answered. That tells /healthz whether Telegram is reachable, and the
process whether Telegram has refused its token while running (401, or 404 from a wrong
address): no call will ever succeed again, so the bot ends rather than linger as a zombie
that looks healthy to its supervisor.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from telegram.error import TelegramError
from telegram.request import HTTPXRequest

from bot.metrics import TOO_MANY_REQUESTS

_REFUSED = (HTTPStatus.UNAUTHORIZED, HTTPStatus.NOT_FOUND)


class TelegramHealth:
    """The outcome of the latest calls: answered, failing since when, or the token refused."""

    def __init__(self, patience: float, clock: Callable[[], float] = time.monotonic) -> None:
        """`patience`: seconds Telegram may go unanswered, while the calls are retried,
        before it counts as unusable."""
        self._patience = patience
        self._clock = clock
        self._failing_since: float | None = None
        self._last_failure = ""
        self.token_refused = asyncio.Event()

    def answered(self, status: int) -> None:
        if status == HTTPStatus.TOO_MANY_REQUESTS:
            TOO_MANY_REQUESTS.inc()
        if status in _REFUSED:
            self.token_refused.set()
        self._failing_since = None

    def failed(self, error: TelegramError) -> None:
        if self._failing_since is None:
            self._failing_since = self._clock()
        self._last_failure = error.__class__.__name__  # its message may name the address

    def trouble(self) -> str | None:
        """Why Telegram counts as unusable now, in one line; None while all is well."""
        if self.token_refused.is_set():
            return "Telegram refused the token"
        if self._failing_since is None:
            return None
        failing = self._clock() - self._failing_since
        if failing <= self._patience:
            return None
        return f"no answer from Telegram for {failing:.0f} s ({self._last_failure})"


class WatchedRequest(HTTPXRequest):
    """python-telegram-bot's HTTP client, telling `calls` how each request went."""

    def __init__(self, calls: TelegramHealth, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._calls = calls

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        try:
            status, payload = await super().do_request(*args, **kwargs)
        except TelegramError as error:  # no answer: the network, a timeout
            self._calls.failed(error)
            raise
        self._calls.answered(status)
        return status, payload
