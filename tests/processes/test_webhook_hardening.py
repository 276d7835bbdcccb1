"""The webhook on a public port: cheap to refuse, bounded, and quiet in the log.

Each case runs against a real `python -m bot --webhook` process: what is measured is its
memory, its sockets and its log.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from pathlib import Path

import aiohttp
import pytest

from bot.config import MINIAPP_PATH
from bot.logs import RepeatFilter
from bot.web.webhook import BODY_TIMEOUT, MAX_UPDATE_BYTES, SECRET_HEADER
from tests.support.harness import User
from tests.support.miniapp import WEBAPP_URL
from tests.support.processes import (
    PUBLIC_URL,
    SECRET,
    bot_env,
    free_port,
    spawn_bot,
    terminate,
)

MB = 1024 * 1024


class Hook:
    """`python -m bot --webhook` on SQLite, its stderr kept, its open files limited."""

    def __init__(self, api, database: Path, open_files: int | None = None, **env: str) -> None:
        self.api = api
        self.port = free_port()
        self.env = bot_env(
            api,
            database,
            WEBHOOK_URL=PUBLIC_URL,
            WEBHOOK_SECRET=SECRET,
            PORT=str(self.port),
            LISTEN="127.0.0.1",
            **env,
        )
        self.open_files = open_files
        self.process: asyncio.subprocess.Process | None = None
        self._stderr: asyncio.Task[bytes] | None = None

    def _limit(self) -> None:
        if self.open_files is not None:
            _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, hard))

    async def __aenter__(self) -> Hook:
        mark = self.api.mark()
        self.process = await spawn_bot(
            "--webhook",
            env=self.env,
            stderr=asyncio.subprocess.PIPE,
            preexec_fn=self._limit,
        )
        # Read all along: a log pipe nobody empties would stop the bot at its next line.
        assert self.process.stderr is not None
        self._stderr = asyncio.create_task(self.process.stderr.read())
        await self.api.wait_request("setWebhook", after=mark, timeout=30)
        self.api.webhook_targets = [f"http://127.0.0.1:{self.port}/telegram"]
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.process is not None and self._stderr is not None
        await terminate(self.process)
        await asyncio.wait_for(self._stderr, timeout=60)

    async def stderr(self) -> str:
        """Everything the process wrote to stderr (once it has ended)."""
        assert self._stderr is not None
        return (await asyncio.wait_for(self._stderr, timeout=60)).decode()

    def rss_mib(self) -> float:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")

    async def raw(self, head: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", self.port), timeout=30
        )
        writer.write(head.encode())
        await writer.drain()
        return reader, writer


def post_head(length: int | None, secret: str | None = SECRET) -> str:
    lines = ["POST /telegram HTTP/1.1", "Host: bot", "Content-Type: application/json"]
    if secret is not None:
        lines.append(f"{SECRET_HEADER}: {secret}")
    lines.append(
        f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    )
    return "\r\n".join(lines) + "\r\n\r\n"


async def send_huge(hook: Hook, secret: str | None) -> tuple[int, bytes]:
    """Stream a 100 MB body; how much went out before the server shut the door, and its answer."""
    reader, writer = await hook.raw(post_head(100 * MB, secret))
    chunk = b"x" * MB
    sent = 0
    try:
        for _ in range(100):
            writer.write(chunk)
            await writer.drain()
            sent += len(chunk)
    except ConnectionError:
        pass
    try:
        answer = await asyncio.wait_for(reader.read(200), timeout=30)
    except ConnectionError:
        answer = b""
    writer.close()
    return sent, answer


async def test_big_bodies_without_the_secret_are_never_read_and_memory_stays_flat(api, tmp_path):
    async with Hook(api, tmp_path / "bot.sqlite3") as hook:
        before = hook.rss_mib()
        for _ in range(5):
            sent, answer = await send_huge(hook, secret="wrong")
            assert sent < 100 * MB, "the server read a whole body it should have refused"
            assert answer == b"" or answer.startswith(b"HTTP/1.1 403")
        after = hook.rss_mib()
        anna = User(api, 101, "Anna")  # and it still serves
        await anna.open_board()
    assert after - before < 20, (before, after)
    stderr = await hook.stderr()
    assert stderr.count("refused a webhook request without the right secret") == 1, stderr


async def test_a_body_over_the_cap_or_no_update_is_refused_with_the_secret_too(api, tmp_path):
    async with Hook(api, tmp_path / "bot.sqlite3") as hook:
        async with aiohttp.ClientSession() as session:
            for body in (b"not json", b"[]", b"5", b"{}", b'{"update_id": 1, "message": "x"}'):
                async with session.post(
                    hook.api.webhook_targets[0], data=body, headers={SECRET_HEADER: SECRET}
                ) as response:
                    assert response.status == 400, body
        sent, answer = await send_huge(hook, secret=SECRET)
        assert sent < 100 * MB and (answer == b"" or answer.startswith(b"HTTP/1.1 413"))
        reader, writer = await hook.raw(post_head(None))  # chunked: counted as it arrives
        piece = b"y" * (64 * 1024)
        try:
            for _ in range(MAX_UPDATE_BYTES // len(piece) + 2):
                writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                await writer.drain()
        except ConnectionError:
            pass
        answer = await asyncio.wait_for(reader.read(200), timeout=30)
        writer.close()
        assert answer.startswith(b"HTTP/1.1 413"), answer


async def test_a_slow_body_times_out_and_slow_connections_lock_nobody_out(api, tmp_path):
    async with Hook(api, tmp_path / "bot.sqlite3", open_files=256) as hook:
        # A body that stops halfway: answered 408 once it has taken too long.
        reader, writer = await hook.raw(post_head(100) + '{"update_id": 1')
        answer = await asyncio.wait_for(reader.read(200), timeout=BODY_TIMEOUT + 30)
        writer.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer
        # Far more stalled connections than the process could hold open files for: headers
        # begun and never finished, as a slowloris attack sends them.
        stalled = []
        for _ in range(400):
            _, writer = await hook.raw("POST /telegram HTTP/1.1\r\nHost: bot\r\n")
            stalled.append(writer)
        # Telegram's updates still get through, and players are answered.
        anna = User(api, 101, "Anna")
        board = await anna.open_board()
        assert board.text
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session,
            session.get(f"http://127.0.0.1:{hook.port}/healthz") as response,
        ):
            assert response.status == 200
        for writer in stalled:
            writer.close()


async def test_slow_bodies_without_credentials_are_refused_unread_and_lock_nobody_out(
    api, tmp_path
):
    """The Mini App's API beside the webhook: a body is read only once its sender is proven,
    so trickling bodies, however many, are answered 401 at once and Telegram still gets in."""
    database = tmp_path / "bot.sqlite3"
    async with Hook(api, database, open_files=256, WEBAPP_URL=WEBAPP_URL) as hook:
        head = (
            f"POST {MINIAPP_PATH}/api/move HTTP/1.1\r\nHost: bot\r\n"
            "Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"
        )
        refused = 0
        stop = asyncio.Event()

        async def trickle() -> None:
            nonlocal refused
            while not stop.is_set():
                reader, writer = await hook.raw(head)
                try:
                    answer = await asyncio.wait_for(reader.read(200), timeout=30)
                except ConnectionError:
                    answer = b""
                writer.close()
                assert answer == b"" or answer.startswith(b"HTTP/1.1 401"), answer
                refused += answer != b""

        peers = [asyncio.create_task(trickle()) for _ in range(300)]
        try:
            anna = User(api, 101, "Anna")
            board = await anna.open_board()
            assert board.text
            async with (
                aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session,
                session.get(f"http://127.0.0.1:{hook.port}/healthz") as response,
            ):
                assert response.status == 200
        finally:
            stop.set()
            await asyncio.gather(*peers)
        # Each peer was answered 401 with its body unread, or closed to make room first.
        assert refused


def test_a_repeated_log_line_is_written_once_a_window_with_a_count(caplog):
    now = [0.0]
    repeat = RepeatFilter(prefixes=("tests.repeats",), window=60, clock=lambda: now[0])
    logger = logging.getLogger("tests.repeats")
    logger.addFilter(repeat)
    try:
        with caplog.at_level(logging.WARNING, logger="tests.repeats"):
            for second in range(120):
                now[0] = second
                for _ in range(100):
                    logger.warning("refused a request from %s", "somewhere")
            now[0] = 200
            logger.warning("refused a request from %s", "somewhere")
            logger.warning("something else")
    finally:
        logger.removeFilter(repeat)
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "refused a request from somewhere",
        "refused a request from somewhere [5999 more like this in the last 60 s]",
        "refused a request from somewhere [5999 more like this in the last 140 s]",
        "something else",
    ]
    elsewhere = logging.LogRecord("tests.retries", logging.WARNING, "", 0, "retrying", (), None)
    assert repeat.filter(elsewhere) and repeat.filter(elsewhere)  # other loggers: every line


@pytest.fixture(autouse=True)
def _enough_open_files():
    """The test process itself holds the stalled connections' other ends."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2048 <= hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (2048, hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
