"""The aiohttp server the route sets run on: bounded, and cheap to refuse.

Anyone can open connections to a public port, so the server keeps what one peer can hold
small. Request headers must arrive within `idle_timeout`, as must the next request of a
kept-alive connection; a refused request's connection is closed at once, its body unread;
bodies are read only through `read_body`, capped and timed, and only once a route has
checked who sends them. Connections are bounded below the process's open-file limit: at the
bound, a new connection closes the one that has gone longest without a verified request
(`verified`: the webhook's secret, the Mini App's initData), counting from when it opened or
its last verified request ended. A connection whose verified request is being answered is
never closed to make room; idle, stalled or trickling peers without credentials are closed
first, so they can never lock Telegram or the players out.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence

from aiohttp import web

from bot.logs import system_reason

log = logging.getLogger(__name__)
# A route set adds its routes (and start-up or clean-up hooks) to the application.
RouteSet = Callable[[web.Application], None]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# The request's key for the callback `verified` calls (set by WebServer's middleware).
_VERIFIED: web.RequestKey[Callable[[], None]] = web.RequestKey("verified")
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


def verified(request: web.Request) -> None:
    """The request has proved who sends it: its connection is the last to be closed to make
    room while it is answered (a no-op on a server that bounds nothing)."""
    mark = request.get(_VERIFIED)
    if mark is not None:
        mark()


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
    except ConnectionError:  # closed to make room, or gone: nobody reads the answer
        raise BodyRefused(refusal(400, "request body cut off")) from None
    return b"".join(chunks)


def connection_limit() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, soft // 2))


class ListenError(Exception):
    """The server cannot listen where it was told to (the port is taken, say)."""


class _Refuse(asyncio.Protocol):
    """For a connection beyond the bound when every other one is being answered a verified
    request: closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.close()


class _Connections:
    """The server's open connections, in the order each opened or last had a verified request
    answered: the first one not being answered now has gone longest without one.

    Closed connections are dropped as they come first, and all at once when they would
    otherwise outnumber the bound twice.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.since: OrderedDict[web.RequestHandler, None] = OrderedDict()
        self.answering: set[object] = set()  # connections whose verified request runs

    def opened(self, connection: web.RequestHandler) -> None:
        self.since[connection] = None
        if len(self.since) > 2 * self.limit:
            for gone in [c for c in self.since if c.transport is None]:
                del self.since[gone]

    def answered(self, connection: object) -> None:
        self.answering.discard(connection)
        if connection in self.since:
            self.since.move_to_end(connection)  # type: ignore[arg-type]

    def make_room(self, server: web.Server) -> bool:
        """Close the connection longest without a verified request if the bound is reached;
        False if every open connection is being answered one."""
        if sum(c.transport is not None for c in server.connections) < self.limit:
            return True
        for connection in list(self.since):
            if connection.transport is None:
                del self.since[connection]
            elif connection not in self.answering:
                del self.since[connection]
                connection.force_close()
                return True
        return False


class WebServer:
    """An aiohttp application served on one address until `stop`, bounded (see the module's
    docstring); `replace` serves another application on the same socket."""

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self._connections = _Connections(connection_limit())
        self._runner = self._runner_for(app)
        self._host = host
        self._port = port
        self._listener: asyncio.Server | None = None
        self._stopped = False

    def _runner_for(self, app: web.Application) -> web.AppRunner:
        app.middlewares.append(self._track)
        return web.AppRunner(
            app,
            handle_signals=False,
            access_log=None,
            keepalive_timeout=IDLE_TIMEOUT,
            # A refused body is not read to its end before the connection closes.
            lingering_time=0,
            shutdown_timeout=SHUTDOWN_GRACE,
        )

    @web.middleware
    async def _track(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """A verified request's connection is not closed to make room until it is answered."""
        connections, protocol = self._connections, request.protocol
        request[_VERIFIED] = lambda: connections.answering.add(protocol)
        try:
            return await handler(request)
        finally:
            if protocol in connections.answering:
                connections.answered(protocol)

    def _accept(self) -> asyncio.BaseProtocol:
        """A new connection, for the application served now."""
        server = self._runner.server
        assert server is not None, "accepting only between start and stop"
        if not self._connections.make_room(server):
            return _Refuse()
        connection = server()
        self._connections.opened(connection)
        return connection

    async def start(self) -> None:
        await self._runner.setup()
        loop = asyncio.get_running_loop()
        try:
            self._listener = await loop.create_server(
                self._accept, self._host, self._port, reuse_address=True
            )
        except OSError as error:
            await self._runner.cleanup()
            raise ListenError(
                f"the web server cannot listen on {self._host}:{self._port}: "
                f"{system_reason(error)}; set PORT to a free port, or LISTEN to another address"
            ) from error
        log.info("web server listening on http://%s:%d", self._host, self._port)

    async def replace(self, app: web.Application) -> None:
        """Serve `app` from now on, on the socket that stays open, so that no connection is
        refused meanwhile: the old application finishes the requests it has (its kept-alive
        connections close), new connections get `app`."""
        runner = self._runner_for(app)
        await runner.setup()
        old, self._runner = self._runner, runner
        await old.cleanup()

    async def stop(self) -> None:
        """Stop serving; once only, however often it is asked."""
        if self._stopped:
            return
        self._stopped = True
        if self._listener is not None:
            self._listener.close()
        await self._runner.cleanup()
