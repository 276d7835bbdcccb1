"""GET /healthz: whether this process can do its job, for the platform that runs it.

Served from the process's first moments: 503 "opening the database" until its lock is taken
and its database opened (a PostgreSQL server far away, or migrating, takes a while), then
503 "waiting for Telegram" until the bot serves, then 200 "ok" when the database answers
and Telegram answered the last call (or has been unreachable only briefly while the calls
are retried, and no other process polls the same token: bot/transport/telegram_health.py);
else 503 with one line saying which. Anyone may ask: the answer names no token, address or
person.

Anyone may also ask a thousand times a second, so an answer is reused for `CACHE_SECONDS`,
and the database is probed by one query at a time, which a request waits for at most
`DATABASE_TIMEOUT`: a database that swallows queries gets one probe, not a pile of them.
Until the bot serves, and from the moment it starts to stop, every other route of the web
server answers 503 too: an update or a Mini App call that arrives then is not taken in by a
process that cannot finish it (Telegram sends the update again).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.transport.telegram_health import TelegramHealth
from bot.web.metrics import METRICS_PATH
from bot.web.server import Handler, RouteSet, refusal

# Seconds the database has to answer a trivial query before the process counts as unhealthy.
DATABASE_TIMEOUT = 3.0
# Seconds one answer is given again to every request that asks.
CACHE_SECONDS = 1.0
HEALTH_PATH = "/healthz"
OPENING = "opening the database"
STARTING = "waiting for Telegram"
STOPPING = "stopping"


class Health:
    """What /healthz answers: how far the start is, then the database's and Telegram's state."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        """Made before the database is opened, so that /healthz answers while it opens."""
        self._probe: Callable[[], Awaitable[object]] | None = None
        self._telegram: TelegramHealth | None = None
        self._clock = clock
        self._phase: str | None = OPENING
        self._answer: tuple[float, str | None] | None = None
        self._probing: asyncio.Task[object] | None = None

    @property
    def phase(self) -> str | None:
        """Before the bot serves or once it starts to stop, which step; else None."""
        return self._phase

    def opened(self, probe: Callable[[], Awaitable[object]], telegram: TelegramHealth) -> None:
        """The database is open: `probe` is a trivial query to it, which answers unless it is
        away; what is waited for now is Telegram."""
        self._probe = probe
        self._telegram = telegram
        self._phase = STARTING

    def start_serving(self) -> None:
        self._phase = None

    def stop_serving(self) -> None:
        self._phase = STOPPING

    async def trouble(self) -> str | None:
        """What keeps the process from doing its job, in one line; None while all is well."""
        if self._phase is not None:
            return self._phase
        assert self._telegram is not None, "serving only once opened"
        if self._answer is not None and self._clock() - self._answer[0] < CACHE_SECONDS:
            return self._answer[1]
        trouble = await self._database() or self._telegram.trouble()
        self._answer = (self._clock(), trouble)
        return trouble

    async def _database(self) -> str | None:
        assert self._probe is not None, "serving only once opened"
        if self._probing is None or self._probing.done():
            self._probing = asyncio.ensure_future(self._probe())
            # A probe given up on may still fail later, with nobody left to ask how.
            self._probing.add_done_callback(_forget_outcome)
        probing = self._probing
        await asyncio.wait([probing], timeout=DATABASE_TIMEOUT)
        if not probing.done():
            return f"the database did not answer within {DATABASE_TIMEOUT:g} s"
        error = probing.exception()
        if error is not None:
            return f"the database cannot be used ({error.__class__.__name__})"
        return None


def _forget_outcome(task: asyncio.Task[object]) -> None:
    if not task.cancelled():
        task.exception()


def health_routes(health: Health) -> RouteSet:
    """GET /healthz."""

    async def healthz(_: web.Request) -> web.Response:
        trouble = await health.trouble()
        if trouble is not None:
            return web.Response(status=503, text=trouble + "\n")
        return web.Response(text="ok\n")

    def register(app: web.Application) -> None:
        app.router.add_get(HEALTH_PATH, healthz)

    return register


def serving_gate(health: Health) -> RouteSet:
    """Every route but /healthz and /metrics answers 503 while the bot does not serve."""

    @web.middleware
    async def gate(request: web.Request, handler: Handler) -> web.StreamResponse:
        phase = health.phase
        if phase is None or request.path in (HEALTH_PATH, METRICS_PATH):
            return await handler(request)
        return refusal(503, phase)

    def register(app: web.Application) -> None:
        app.middlewares.append(gate)

    return register
