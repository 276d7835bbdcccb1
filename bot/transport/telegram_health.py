"""What the bot's calls to Telegram come to, seen where every one of them passes.

Every Bot API request (getUpdates included) goes through `WatchedRequest`, which notes
whether Telegram answered. That tells /healthz whether Telegram is reachable, and the
process whether Telegram has refused its token while running (401, or 404 from a wrong
address): no call will ever succeed again, so the bot ends rather than linger as a zombie
that looks healthy to its supervisor.

A 409 Conflict means another process polls the same token (a second machine with a SQLite
file of its own, say): Telegram hands each update to one of them, so each misses some.
Nothing here can settle which one should go, so the operator is told: one log line a
minute with the count, /healthz at 503 until a minute has passed without one, and the
count in /metrics.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

import httpx
from telegram.error import TelegramError
from telegram.request import HTTPXRequest

from bot.metrics import TELEGRAM_CONFLICTS, TOO_MANY_REQUESTS

log = logging.getLogger(__name__)
_REFUSED = (HTTPStatus.UNAUTHORIZED, HTTPStatus.NOT_FOUND)
# Seconds after the last 409 that /healthz still says so, and between two log lines of them.
CONFLICT_MEMORY = 60.0


class TelegramHealth:
    """The outcome of the latest calls: answered, failing since when, or the token refused."""

    def __init__(self, patience: float, clock: Callable[[], float] = time.monotonic) -> None:
        """`patience`: seconds Telegram may go unanswered, while the calls are retried,
        before it counts as unusable."""
        self._patience = patience
        self._clock = clock
        self._failing_since: float | None = None
        self._last_failure = ""
        self._last_conflict: float | None = None
        self._conflicts_logged_at: float | None = None
        self._conflicts_unlogged = 0
        self.token_refused = asyncio.Event()

    def answered(self, status: int) -> None:
        if status == HTTPStatus.TOO_MANY_REQUESTS:
            TOO_MANY_REQUESTS.inc()
        if status == HTTPStatus.CONFLICT:
            self._conflict()
        if status in _REFUSED:
            self.token_refused.set()
        self._failing_since = None

    def failed(self, error: TelegramError) -> None:
        if self._failing_since is None:
            self._failing_since = self._clock()
        self._last_failure = error.__class__.__name__  # its message may name the address

    def _conflict(self) -> None:
        TELEGRAM_CONFLICTS.inc()
        now = self._clock()
        self._last_conflict = now
        self._conflicts_unlogged += 1
        logged = self._conflicts_logged_at
        if logged is not None and now - logged < CONFLICT_MEMORY:
            return
        if logged is None:
            log.error(
                "Telegram answered 409 Conflict: another process polls this bot's token "
                "(on another machine?) and only one may, so each misses updates; counted "
                "here once a minute"
            )
        else:
            log.error(
                "Telegram answered 409 Conflict %d times in the last %.0f s: another process "
                "polls this bot's token",
                self._conflicts_unlogged,
                now - logged,
            )
        self._conflicts_logged_at = now
        self._conflicts_unlogged = 0

    def trouble(self) -> str | None:
        """Why Telegram counts as unusable now, in one line; None while all is well."""
        if self.token_refused.is_set():
            return "Telegram refused the token"
        now = self._clock()
        if self._last_conflict is not None and now - self._last_conflict < CONFLICT_MEMORY:
            return "another process polls this bot's token (409 Conflict from Telegram)"
        if self._failing_since is None:
            return None
        failing = now - self._failing_since
        if failing <= self._patience:
            return None
        return f"no answer from Telegram for {failing:.0f} s ({self._last_failure})"


@functools.cache
def _tls() -> ssl.SSLContext:
    """The process's TLS settings, as httpx makes them by default (certifi's roots, or the
    `SSL_CERT_FILE` / `SSL_CERT_DIR` given), made once: each client would otherwise read and
    parse the whole certificate bundle again, about 20 ms of CPU, and an application has two
    clients, made anew each time it is built."""
    return httpx.create_ssl_context()


class WatchedRequest(HTTPXRequest):
    """python-telegram-bot's HTTP client, telling `calls` how each request went."""

    def __init__(self, calls: TelegramHealth, **kwargs: Any) -> None:
        super().__init__(httpx_kwargs={"verify": _tls()}, **kwargs)
        self._calls = calls

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        try:
            status, payload = await super().do_request(*args, **kwargs)
        except TelegramError as error:  # no answer: the network, a timeout
            self._calls.failed(error)
            raise
        self._calls.answered(status)
        return status, payload
