"""`python -m bot` as a real process: polling or webhook, refused settings, clean shutdowns."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tests.support.databases import Database

ROOT = Path(__file__).resolve().parents[2]  # the checkout: `python -m bot` runs from here
SECRET = "multi-process_secret"
PUBLIC_URL = "https://bot2048.example/telegram"  # what Telegram is told; never contacted


def bot_env(api, database: Database, **settings: str) -> dict[str, str]:
    """The environment of a bot process on either backend, plus `settings`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TELEGRAM_", "BOT_", "WEBHOOK_"))
        and k not in ("DATABASE_URL", "PORT", "LISTEN")
    }
    env.update(TELEGRAM_BOT_TOKEN=api.token, TELEGRAM_BASE_URL=api.base_url, LOG_LEVEL="WARNING")
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
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=ROOT, env=env, stderr=asyncio.subprocess.PIPE
    )
    await api.wait_request("setMyCommands", after=mark, timeout=30)
    return process


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebhookProcess:
    """`python -m bot --webhook` on a port of its own."""

    def __init__(self, api, database: Database) -> None:
        self.api = api
        self.database = database
        self.port = free_port()
        self.process: asyncio.subprocess.Process | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/telegram"

    async def start(self) -> None:
        env = bot_env(
            self.api,
            self.database,
            WEBHOOK_URL=PUBLIC_URL,
            WEBHOOK_SECRET=SECRET,
            PORT=str(self.port),
            LISTEN="127.0.0.1",
        )
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "--webhook", cwd=ROOT, env=env
        )
        deadline = asyncio.get_running_loop().time() + 30
        while True:  # listening once a connection is accepted
            assert self.process.returncode is None, "the bot process exited"
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                return
            assert asyncio.get_running_loop().time() < deadline, "the webhook never listened"
            await asyncio.sleep(0.1)

    async def stop(self) -> int | None:
        if self.process is None or self.process.returncode is not None:
            return None if self.process is None else self.process.returncode
        self.process.terminate()
        try:
            return await asyncio.wait_for(self.process.wait(), timeout=30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
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


async def stop_cleanly(process: asyncio.subprocess.Process) -> str:
    """SIGTERM a bot process; it must exit 0 without a traceback. Returns its stderr."""
    process.send_signal(signal.SIGTERM)
    try:
        code = await asyncio.wait_for(process.wait(), timeout=30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.stderr is not None
    stderr = (await process.stderr.read()).decode()
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
