"""The web server's bound: peers without a verified request make room first."""

from __future__ import annotations

import asyncio
import socket

import pytest
from aiohttp import web

from bot.web import server
from bot.web.server import ListenError, WebServer, build_web_app, verified

LIMIT = 3


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Peer:
    """One raw connection to the server."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def ask(self, path: str) -> bytes:
        """A request on this connection, kept alive; the answer's status line."""
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: bot\r\n\r\n".encode())
        await self.writer.drain()
        return await self.answer()

    async def answer(self) -> bytes:
        """The next answer's status line, read to its end (every answer here is "ok")."""
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), timeout=30)
        await asyncio.wait_for(self.reader.readexactly(2), timeout=30)
        return head.split(b"\r\n", 1)[0]

    async def closed(self) -> bool:
        """Whether the server has closed this connection (its answers read up to the end)."""
        try:
            while await asyncio.wait_for(self.reader.read(1024), timeout=30):
                pass
        except ConnectionError:
            pass
        return True


@pytest.fixture
async def bounded(monkeypatch):
    """A server bounded at LIMIT connections: /verified proves its sender, and answers once
    `release` is set; /plain proves nothing."""
    monkeypatch.setattr(server, "MAX_CONNECTIONS", LIMIT)
    release = asyncio.Event()
    release.set()

    async def proven(request: web.Request) -> web.Response:
        verified(request)
        await release.wait()
        return web.Response(text="ok")

    async def plain(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    def routes(app: web.Application) -> None:
        app.router.add_get("/verified", proven)
        app.router.add_get("/plain", plain)

    port = _free_port()
    web_server = WebServer(build_web_app([routes]), "127.0.0.1", port)
    await web_server.start()

    async def connect() -> Peer:
        return Peer(*await asyncio.open_connection("127.0.0.1", port))

    try:
        yield connect, release
    finally:
        await web_server.stop()


async def test_the_peer_longest_without_a_verified_request_is_closed_first(bounded):
    connect, _ = bounded
    telegram = await connect()  # the oldest connection, and kept alive between requests
    stalled = [await connect() for _ in range(LIMIT - 1)]
    for peer in stalled:
        peer.writer.write(b"GET /plain HTTP/1.1\r\nHost: bot\r\n")  # headers never finished
    assert (await telegram.ask("/verified")).startswith(b"HTTP/1.1 200")
    newcomer = await connect()
    assert (await newcomer.ask("/plain")).startswith(b"HTTP/1.1 200")
    assert await stalled[0].closed()
    assert (await telegram.ask("/verified")).startswith(b"HTTP/1.1 200")


async def test_a_verified_request_being_answered_is_never_closed_to_make_room(bounded):
    connect, release = bounded
    release.clear()
    telegram = await connect()
    telegram.writer.write(b"GET /verified HTTP/1.1\r\nHost: bot\r\n\r\n")
    await telegram.writer.drain()
    others = []
    for _ in range(3 * LIMIT):  # each new one closes the oldest of the others
        others.append(await connect())
        assert (await others[-1].ask("/plain")).startswith(b"HTTP/1.1 200")
    assert await others[0].closed()
    release.set()
    assert (await telegram.answer()).startswith(b"HTTP/1.1 200")


async def test_a_port_that_is_taken_is_one_line_with_what_to_do():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        web_server = WebServer(build_web_app([]), "127.0.0.1", port)
        with pytest.raises(ListenError) as refused:
            await web_server.start()
    assert str(refused.value) == (
        f"the web server cannot listen on 127.0.0.1:{port}: address already in use; set PORT "
        "to a free port, or LISTEN to another address"
    )


async def test_another_application_is_served_on_the_open_socket_and_the_first_finishes():
    """How the bot's web server goes from /healthz alone to every route, while it starts."""
    release = asyncio.Event()

    async def slow(_: web.Request) -> web.Response:
        await release.wait()
        return web.Response(text="ok")

    async def fast(_: web.Request) -> web.Response:
        return web.Response(text="ok")

    def first(app: web.Application) -> None:
        app.router.add_get("/slow", slow)

    def second(app: web.Application) -> None:
        app.router.add_get("/fast", fast)

    port = _free_port()
    web_server = WebServer(build_web_app([first]), "127.0.0.1", port)
    await web_server.start()
    try:
        early = Peer(*await asyncio.open_connection("127.0.0.1", port))
        early.writer.write(b"GET /slow HTTP/1.1\r\nHost: bot\r\n\r\n")
        await early.writer.drain()
        replacing = asyncio.create_task(web_server.replace(build_web_app([second])))
        while True:  # every new connection is answered, by the first application until the swap
            late = Peer(*await asyncio.open_connection("127.0.0.1", port))
            status = await late.ask("/fast")
            late.writer.close()
            if status == b"HTTP/1.1 200 OK":
                break
            assert status == b"HTTP/1.1 404 Not Found"
        release.set()
        assert await early.answer() == b"HTTP/1.1 200 OK"  # the request in flight finished
        await replacing
        assert await early.closed()  # and the first application's connection was closed
    finally:
        await web_server.stop()
