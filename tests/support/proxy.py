"""A TCP proxy on 127.0.0.1 that a test can cut and restore: a database server going away.

It can also put the server further away (`delay`, each way) and count the round trips made
through it (`round_trips`): what a database in another zone costs, and what a tap pays.
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse


class TcpProxy:
    """Forwards connections to `target`; `cut()` drops them all and refuses new ones.

    `delay`: seconds each byte takes each way, so a round trip takes twice that more.
    `round_trips`: how many times a client sent after the server had answered it (or first),
    on every connection: each is a wait for the server.
    """

    def __init__(self, host: str, port: int, delay: float = 0.0) -> None:
        self._target = (host, port)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.up = True
        self.delay = delay
        self.round_trips = 0

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
        answered = [True]  # the connection's last bytes came from the server
        await asyncio.gather(
            self._pipe(reader, upstream_writer, answered, asking=True),
            self._pipe(upstream_reader, writer, answered, asking=False),
        )

    async def _pipe(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        answered: list[bool],
        *,
        asking: bool,
    ) -> None:
        """Forward one direction, each chunk `delay` after it came, without holding up the
        chunks behind it."""
        loop = asyncio.get_running_loop()
        chunks: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def forward() -> None:
            while True:
                due, data = await chunks.get()
                if data == b"":
                    return
                await asyncio.sleep(due - loop.time())
                writer.write(data)
                await writer.drain()

        forwarding = asyncio.ensure_future(forward())
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                if asking and answered[0]:
                    self.round_trips += 1
                answered[0] = not asking
                chunks.put_nowait((loop.time() + self.delay, data))
            chunks.put_nowait((loop.time() + self.delay, b""))
            await forwarding
        forwarding.cancel()
        writer.transport.abort()
        self._writers.discard(writer)


def through_proxy(url: str, port: int) -> str:
    """The database `url` as reached through a proxy listening on 127.0.0.1:`port`."""
    parts = urllib.parse.urlsplit(url)
    user = parts.netloc.rpartition("@")[0]
    netloc = f"{user}@127.0.0.1:{port}" if user else f"127.0.0.1:{port}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
