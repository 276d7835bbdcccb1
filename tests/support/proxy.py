"""A TCP proxy on 127.0.0.1 that a test can cut and restore: a database server going away.

Two ways to go away: `cut()` resets every connection and refuses new ones (the server is
down, the kernel says so at once); `black_hole()` keeps every connection open and swallows
their bytes both ways, new ones included (a network that drops packets: nobody says a word,
and only a timeout tells). After `restore()`, new connections reach the server; the ones a
black hole swallowed bytes of stay silent, their streams broken, until an end closes them,
which the other end never hears of.
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from dataclasses import dataclass, field


@dataclass(eq=False)
class _Link:
    """One client's connection and its upstream one (None: accepted into a black hole)."""

    writers: list[asyncio.StreamWriter] = field(default_factory=list)
    swallowed: bool = False


class TcpProxy:
    """Forwards connections to `target`, until cut or black-holed."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._server: asyncio.Server | None = None
        self._links: set[_Link] = set()
        self.up = True
        self._hole = False

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def cut(self) -> None:
        """The server is gone: open connections break, new ones are closed at once."""
        self.up = False
        self._hole = False
        for link in list(self._links):
            for writer in link.writers:
                writer.transport.abort()
        self._links.clear()

    def black_hole(self) -> None:
        """The network drops everything: connections stay open, and no byte gets through."""
        self.up = False
        self._hole = True
        for link in self._links:
            link.swallowed = True

    def restore(self) -> None:
        self.up = True
        self._hole = False

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._hole:
            link = _Link([writer], swallowed=True)
            self._links.add(link)
            await self._pipe(reader, None, link)
            return
        if not self.up:
            writer.transport.abort()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            return
        link = _Link([writer, upstream_writer])
        self._links.add(link)
        await asyncio.gather(
            self._pipe(reader, upstream_writer, link), self._pipe(upstream_reader, writer, link)
        )

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter | None, link: _Link
    ) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                if link.swallowed or writer is None:
                    continue
                writer.write(data)
                await writer.drain()
        if not link.swallowed and writer is not None:
            writer.transport.abort()  # a reset passed on; a black hole passes nothing
            self._links.discard(link)


def through_proxy(url: str, port: int) -> str:
    """The database `url` as reached through a proxy listening on 127.0.0.1:`port`."""
    parts = urllib.parse.urlsplit(url)
    user = parts.netloc.rpartition("@")[0]
    netloc = f"{user}@127.0.0.1:{port}" if user else f"127.0.0.1:{port}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
