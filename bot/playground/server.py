"""One process, one port: the Bot API emulator, the real bot polling it, and the page."""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from telegram.ext import Application

from bot.config import Config
from bot.emulator import DEFAULT_TOKEN, FakeBotApi
from bot.lifecycle import opened, serving
from bot.logs import system_reason
from bot.playground.ids import lasting_ids
from bot.playground.people import populate
from bot.playground.web import PlaygroundWeb
from bot.web.health import health_routes
from bot.web.metrics import metrics_routes
from bot.web.miniapp.api import miniapp_routes

log = logging.getLogger(__name__)


class PlaygroundError(Exception):
    """The playground cannot start (the port is taken, say); the message is for the user."""


@dataclass(frozen=True, slots=True)
class Playground:
    api: FakeBotApi
    application: Application
    url: str


def _listen(host: str, port: int) -> socket.socket:
    """The playground's one socket, bound before anything starts: the bot's Mini App button
    needs the address, and the emulator then serves on it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise PlaygroundError(
            f"cannot listen on {host}:{port}: {system_reason(error)}; pick another port with "
            "--port (--port 0 picks a free one)"
        ) from None
    return sock


@asynccontextmanager
async def open_playground(
    port: int = 0,
    database: Path = Path("playground.sqlite3"),
    host: str = "127.0.0.1",
    *,
    poll_timeout: int = 10,
) -> AsyncIterator[Playground]:
    """Start emulator, page and bot; ``port=0`` picks a free port (see ``Playground.url``).

    The bot runs the production lifecycle (bot/lifecycle.py); only ``base_url`` differs. Its
    Telegram stand-in starts between the two halves: after the bot is opened (its Mini App is
    served on the stand-in's port, and the database is this process's alone, so is the record
    of ids beside it), before it is started (which asks Telegram who it is).
    """
    sock = _listen(host, port)
    with sock:
        shown_host = f"[{host}]" if ":" in host else host
        url = f"http://{shown_host}:{sock.getsockname()[1]}/"
        # The Mini App on this same port: a Swipe button opens it in a phone-sized frame.
        config = Config(
            token=DEFAULT_TOKEN, base_url=url + "bot", database=database, webapp_url=url.rstrip("/")
        )
        async with opened(config) as process:
            api = FakeBotApi(DEFAULT_TOKEN, ids=lasting_ids(database), inline_mode=True)
            populate(api)
            api.mount(PlaygroundWeb(api).setup)
            api.mount(miniapp_routes(process.miniapp))
            # What docs/operating.md's "Health, metrics and alerts" shows, tried without a token.
            api.mount(health_routes(process.health))
            api.mount(metrics_routes())
            await api.start(host, sock=sock)
            try:
                async with serving(process, poll_timeout=poll_timeout):
                    yield Playground(api, process.application, url)
            finally:
                await api.stop()


async def run_playground(port: int, database: Path, host: str = "127.0.0.1") -> None:
    """Serve until Ctrl+C or SIGTERM, then stop the bot and the server cleanly."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # Windows, or not the main thread
            continue
        installed.append(sig)
    try:
        async with open_playground(port, database, host) as playground:
            print(f"2048 playground: open {playground.url} (Ctrl+C to stop)", flush=True)
            await stop.wait()
            log.info("stopping the playground")
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
