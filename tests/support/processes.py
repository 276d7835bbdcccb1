"""`python -m bot` as a real process: polling or webhook, refused settings, clean shutdowns."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp

from bot.storage.postgres import describe_url
from tests.support.databases import Database

ROOT = Path(__file__).resolve().parents[2]  # the checkout: `python -m bot` runs from here
SECRET = "multi-process_secret"
PUBLIC_URL = "https://bot2048.example/telegram"  # what Telegram is told; never contacted
# Seconds a bot process may take to start or stop: a Python start-up on a busy machine can
# take many seconds, and a test waits for the moment it is ready, never for a fixed time.
PROCESS_TIMEOUT = 60.0
# Every bot process started here: tests/processes/conftest.py stops those still running when
# their test ends, whether it passed, failed or timed out.
_started: list[asyncio.subprocess.Process] = []


async def spawn_bot(
    *args: str, env: dict[str, str], cwd: Path = ROOT, **options: Any
) -> asyncio.subprocess.Process:
    """`python -m bot` with `args`: the only way a test starts one, so that none outlives it."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, cwd=cwd, env=env, **options
    )
    _started.append(process)
    return process


async def stop_leftovers() -> None:
    """Stop every bot process the test started that still runs (SIGTERM, then SIGKILL)."""
    running = [process for process in _started if process.returncode is None]
    _started.clear()
    await asyncio.gather(*(terminate(process) for process in running))


def bot_env(api, database: Database, **settings: str) -> dict[str, str]:
    """The environment of a bot process on either backend, plus `settings`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TELEGRAM_", "BOT_", "WEBHOOK_"))
        and k not in ("DATABASE_URL", "PORT", "LISTEN")
    }
    # Another TELEGRAM_BASE_URL in `settings`: a Telegram that is not up yet, say.
    base_url = settings.pop("TELEGRAM_BASE_URL", None) or api.base_url
    env.update(TELEGRAM_BOT_TOKEN=api.token, TELEGRAM_BASE_URL=base_url, LOG_LEVEL="WARNING")
    if isinstance(database, str):
        env["DATABASE_URL"] = database
    else:
        env["BOT_DATABASE"] = str(database)
    env.update(settings)
    return env


async def start_bot_process(api, database: Database) -> asyncio.subprocess.Process:
    """`python -m bot` polling the emulator, once it is ready (its command menus are set)."""
    env = bot_env(api, database)
    mark = api.mark()
    process = await spawn_bot(env=env, stderr=asyncio.subprocess.PIPE)
    try:
        await api.wait_request("setMyCommands", after=mark, timeout=PROCESS_TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError(
            f"the bot process was not ready within {PROCESS_TIMEOUT:.0f} s"
        ) from None
    return process


def _worker_ports() -> Iterator[int]:
    """This test process's ports: below Linux's ephemeral range (32768 and up), so no outgoing
    connection takes one meanwhile, and a slice of their own for each pytest-xdist worker, so
    a port one worker found free is not handed to a bot process of another."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    first = 20_000 + 1_500 * (worker % 8)
    return itertools.cycle(range(first, first + 1_500))


_PORTS = _worker_ports()


def free_port() -> int:
    """A port nothing listens on now, for a bot process of this test to listen on."""
    while True:
        port = next(_PORTS)
        with socket.socket() as probe, contextlib.suppress(OSError):
            probe.bind(("127.0.0.1", port))
            return port


class WebhookProcess:
    """`python -m bot --webhook` on a port of its own."""

    def __init__(self, api, database: Database, **settings: str) -> None:
        self.api = api
        self.database = database
        self.settings = settings  # more of the environment (WEBAPP_URL, say)
        self.port = free_port()
        self.process: asyncio.subprocess.Process | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/telegram"

    @property
    def web_base(self) -> str:
        """Where its web server answers (the Mini App's API too, with WEBAPP_URL set)."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        env = bot_env(
            self.api,
            self.database,
            WEBHOOK_URL=PUBLIC_URL,
            WEBHOOK_SECRET=SECRET,
            PORT=str(self.port),
            LISTEN="127.0.0.1",
            **self.settings,
        )
        self.process = await spawn_bot("--webhook", env=env)
        deadline = asyncio.get_running_loop().time() + PROCESS_TIMEOUT
        health = f"http://127.0.0.1:{self.port}/healthz"
        async with aiohttp.ClientSession() as session:
            while True:  # serving once /healthz says so (it answers 503 while starting)
                assert self.process.returncode is None, "the bot process exited"
                with contextlib.suppress(aiohttp.ClientError):
                    async with session.get(health) as response:
                        if response.status == 200:
                            return
                assert asyncio.get_running_loop().time() < deadline, (
                    f"the webhook did not serve within {PROCESS_TIMEOUT:.0f} s"
                )
                await asyncio.sleep(0.1)

    async def stop(self) -> int | None:
        if self.process is None or self.process.returncode is not None:
            return None if self.process is None else self.process.returncode
        self.process.terminate()
        try:
            return await asyncio.wait_for(self.process.wait(), timeout=PROCESS_TIMEOUT)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            raise


async def start_all(processes: list[WebhookProcess]) -> None:
    """Start the processes at once; should one of them fail, stop the others before raising,
    so that none outlives the test."""
    try:
        await asyncio.gather(*(p.start() for p in processes))
    except BaseException:
        await asyncio.gather(*(p.stop() for p in processes), return_exceptions=True)
        raise


def refused_setting(args: list[str], env: dict[str, str]) -> str:
    """Run `python -m bot` with a bad setting: exit code 2, one clear line, no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    return done.stderr


async def refused_at_start(process: asyncio.subprocess.Process) -> tuple[str, str]:
    """A process that must stop at once by itself: exit code 1 and one line on stderr, no
    traceback. Returns its stdout and stderr."""
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    text = stderr.decode()
    assert process.returncode == 1, text
    assert len(text.strip().splitlines()) == 1 and "Traceback" not in text, text
    return (stdout or b"").decode(), text


async def stop_cleanly(process: asyncio.subprocess.Process) -> str:
    """SIGTERM a bot process; it must exit 0 without a traceback. Returns its stderr.

    Its stderr is read while it stops: asyncio stops reading a pipe whose buffer is full,
    and `wait()` returns only once the pipe is closed, so a process that logged more than
    the buffer (DEBUG, on a slow machine) would seem never to exit."""
    assert process.stderr is not None
    process.send_signal(signal.SIGTERM)
    try:
        _, err = await asyncio.wait_for(process.communicate(), timeout=PROCESS_TIMEOUT)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    stderr = err.decode()
    code = process.returncode
    assert code == 0, stderr
    assert "Traceback" not in stderr, stderr
    return stderr


async def terminate(process: asyncio.subprocess.Process) -> None:
    """SIGTERM a bot process if it still runs; SIGKILL it if it has not exited within 30 s."""
    if process.returncode is not None:
        return
    process.terminate()
    try:
        await asyncio.wait_for(process.wait(), timeout=30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def playground_env(**values: str) -> dict[str, str]:
    """This environment without the bot's settings, then `values`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "BOT_", "LOG_"))}
    env.update(values)
    return env


async def start_playground(folder: Path, **env: str) -> asyncio.subprocess.Process:
    """A playground in `folder` (its default database is there), on a free port."""
    return await spawn_bot(
        "--playground",
        "--port",
        "0",
        cwd=folder,
        env=playground_env(PYTHONPATH=str(ROOT), **env),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


def second_poller_refused(url: str) -> str:
    """The line a polling process prints when another process of the bot takes its updates."""
    return (
        f"bot2048: another process of this bot already takes its updates from "
        f"{describe_url(url)}: stop it first, or run every process in webhook mode (one polling "
        "process per bot, or webhook processes only)\n"
    )
