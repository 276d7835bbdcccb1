"""The aiohttp server the route sets run on: bounded, and cheap to refuse.

Anyone can open connections to a public port, so the server keeps what one peer can hold
small. Request headers must arrive within `idle_timeout`, as must the next request of a
kept-alive connection; a refused request's connection is closed at once, its body unread;
bodies are read only through `read_body`, capped and timed. Connections are bounded below
the process's open-file limit: at the bound, a new connection closes the oldest one that is
not in the middle of a request, so idle or stalled peers can never lock the others out.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections.abc import Awaitable, Callable, Sequence

from aiohttp import web

log = logging.getLogger(__name__)
# A route set adds its routes (and start-up or clean-up hooks) to the application.
RouteSet = Callable[[web.Application], None]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# Seconds a connection may take to send a request's headers, or stay idle between requests.
IDLE_TIMEOUT = 10.0
# Connections at most; never more than half the open files the process may have, since the
# database, Telegram's connection pool and the worker processes need the rest.
MAX_CONNECTIONS = 1000
# Seconds in-flight requests get to finish when the server stops.
SHUTDOWN_GRACE = 5.0


def build_web_app(routes: Sequence[RouteSet]) -> web.Application:
    """One aiohttp application with every route set in `routes` registered on it."""
    app = web.Application()
    app.on_response_prepare.append(_unnamed)
    for add_routes in routes:
        add_routes(app)
    return app


async def _unnamed(_: web.Request, response: web.StreamResponse) -> None:
    """No answer says which server and Python it comes from: that only helps an attacker."""
    response.headers.popall("Server", None)


def refusal(status: int, reason: str) -> web.Response:
    """A short answer that also ends the connection, without reading what the peer sends."""
    response = web.Response(status=status, text=reason + "\n")
    response.force_close()
    return response


class BodyRefused(Exception):
    """The request's body was too large or too slow; `response` says which."""

    def __init__(self, response: web.Response) -> None:
        super().__init__(response.text)
        self.response = response


async def read_body(request: web.Request, limit: int, timeout: float) -> bytes:
    """The request's body, or BodyRefused beyond `limit` bytes or `timeout` seconds.

    A declared length over the limit is refused before a byte is read; a chunked body is
    counted as it arrives. Nothing beyond `limit` + one chunk is ever held in memory.
    """
    if request.content_length is not None and request.content_length > limit:
        raise BodyRefused(refusal(413, "request body too large"))
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(timeout):
            while chunk := await request.content.readany():
                size += len(chunk)
                if size > limit:
                    raise BodyRefused(refusal(413, "request body too large"))
                chunks.append(chunk)
    except TimeoutError:
        raise BodyRefused(refusal(408, "request body too slow")) from None
    return b"".join(chunks)


def connection_limit() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, soft // 2))


class ListenError(Exception):
    """The server cannot listen where it was told to (the port is taken, say)."""


class _Refuse(asyncio.Protocol):
    """For a connection beyond the bound when every other one is mid-request: closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.close()


class _BoundedSite(web.BaseSite):
    """A TCP site whose connections are bounded (see the module's docstring)."""

    def __init__(
        self, runner: web.BaseRunner, host: str, port: int, limit: int, busy: set[object]
    ) -> None:
        super().__init__(runner)
        self._host = host
        self._port = port
        self._limit = limit
        self._busy = busy

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: self._accept(server), self._host, self._port, reuse_address=True
        )

    def _accept(self, server: web.Server) -> asyncio.BaseProtocol:
        connections = [c for c in server.connections if c.transport is not None]
        if len(connections) >= self._limit:
            idle = next((c for c in connections if c not in self._busy), None)
            if idle is None:
                return _Refuse()
            idle.force_close()
        return server()


class WebServer:
    """An aiohttp application served on one address until `stop`."""

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self._busy: set[object] = set()
        app.middlewares.append(self._mark_busy)
        self._runner = web.AppRunner(
            app,
            handle_signals=False,
            access_log=None,
            keepalive_timeout=IDLE_TIMEOUT,
            # A refused body is not read to its end before the connection closes.
            lingering_time=0,
            shutdown_timeout=SHUTDOWN_GRACE,
        )
        self._host = host
        self._port = port
        self._stopped = False

    @web.middleware
    async def _mark_busy(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Connections in the middle of a request are never closed to make room."""
        self._busy.add(request.protocol)
        try:
            return await handler(request)
        finally:
            self._busy.discard(request.protocol)

    async def start(self) -> None:
        await self._runner.setup()
        site = _BoundedSite(self._runner, self._host, self._port, connection_limit(), self._busy)
        try:
            await site.start()
        except OSError as error:
            await self._runner.cleanup()
            raise ListenError(f"the web server cannot listen on {site.name}: {error}") from error
        log.info("web server listening on %s", site.name)

    async def stop(self) -> None:
        """Stop serving; once only, however often it is asked."""
        if self._stopped:
            return
        self._stopped = True
        await self._runner.cleanup()
