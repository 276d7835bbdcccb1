"""A TCP proxy on 127.0.0.1 that a test can cut and restore: a database server going away."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse


class TcpProxy:
    """Forwards connections to `target`; `cut()` drops them all and refuses new ones."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.up = True

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
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def restore(self) -> None:
        self.up = True

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.up:
            writer.transport.abort()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, upstream_writer}
        await asyncio.gather(
            self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer)
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.transport.abort()
        self._writers.discard(writer)


def through_proxy(url: str, port: int) -> str:
    """The database `url` as reached through a proxy listening on 127.0.0.1:`port`."""
    parts = urllib.parse.urlsplit(url)
    user = parts.netloc.rpartition("@")[0]
    netloc = f"{user}@127.0.0.1:{port}" if user else f"127.0.0.1:{port}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
