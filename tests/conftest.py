"""Fixtures for every folder: the Bot API emulator on 127.0.0.1, a real database, the real
Application (`bot`), the Mini App's and the playground's servers. Helpers live in tests/support/.

Tests act as Telegram users through the emulator and look only at what the bot sent, plus the
database where a test needs to set up a position (a board one merge from 2048, say).

Every test that uses the `database` fixture (and so `bot`) runs twice: on a SQLite file and on
PostgreSQL, in a schema of its own (see tests/support/databases.py).

A test's folder says what it drives, and gives it its marker: `e2e` (tests/e2e/), `process`
(tests/processes/) or `browser` (tests/browser/). A test that takes seconds by design (it waits
out Telegram's pace or a flood wait) is marked `slow`, and `-m "not process and not browser and
not slow"` is the inner loop. Nothing may be logged at ERROR during any test unless it is
marked `errors_expected`: trouble the bot expects is handled quietly.
"""

from __future__ import annotations

import logging
import urllib.parse
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from bot.config import TELEGRAM_PACE, Config
from bot.emulator import TELEGRAM_LIMITS, FakeBotApi
from bot.playground import open_playground
from bot.storage import open_storage
from bot.web.routes import route_sets
from bot.web.server import build_web_app
from tests.support.bot_api_spec import check_calls
from tests.support.databases import (
    BACKENDS,
    check_replays,
    fresh_postgres_database,
)
from tests.support.harness import RunningBot
from tests.support.miniapp import WEBAPP_URL
from tests.support.proxy import TcpProxy, through_proxy

# Every Bot API call is logged by httpx at INFO; the bot's own INFO lines matter more here.
logging.getLogger("httpx").setLevel(logging.WARNING)

# The marker each folder gives its tests, so that no test can lack the one that selects it.
FOLDER_MARKERS = {"e2e": "e2e", "processes": "process", "browser": "browser"}


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests = Path(__file__).parent
    for item in items:
        marker = FOLDER_MARKERS.get(item.path.relative_to(tests).parts[0])
        if marker is not None:
            item.add_marker(marker)


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
async def database(backend, tmp_path):
    """An empty database on the backend under test.

    Afterwards every game the test saved is replayed from its seed and actions, and must
    come out as stored: so every game the suite plays, on both backends, checks the log.
    """
    if backend == "sqlite":
        yield tmp_path / "bot.sqlite3"
        await check_replays(tmp_path / "bot.sqlite3")
        return
    async with fresh_postgres_database() as url:
        yield url
        await check_replays(url)


@pytest.fixture
async def postgres():
    """An empty PostgreSQL database (a schema of its own), for PostgreSQL-only tests."""
    async with fresh_postgres_database() as url:
        yield url


@pytest.fixture
async def storage(database):
    """Storage opened on the test's database, as a bot process opens it."""
    store = await open_storage(database)
    yield store
    await store.close()


@pytest.fixture(autouse=True)
def no_errors_logged(request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture):
    """Fail the test if anything was logged at ERROR: expected trouble is handled quietly.
    A test that provokes an error on purpose is marked `errors_expected`."""
    if request.node.get_closest_marker("errors_expected") is not None:
        yield
        return
    caplog.set_level(logging.WARNING)
    yield
    # caplog.records holds only the current phase (teardown, here): collect the test's own.
    records = [*caplog.get_records("setup"), *caplog.get_records("call"), *caplog.records]
    errors = [r for r in records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


def _unlimited(request: pytest.FixtureRequest) -> bool:
    """`@pytest.mark.no_flood_limits`: a test about something else that posts a lot, fast."""
    return request.node.get_closest_marker("no_flood_limits") is not None


@pytest.fixture
async def api(request):
    """The emulator, enforcing Telegram's flood limits unless the test is marked otherwise;
    afterwards every call it took, and its answer, is held against the Bot API."""
    async with FakeBotApi(flood=None if _unlimited(request) else TELEGRAM_LIMITS) as fake:
        yield fake
    check_calls(fake.requests)


@pytest.fixture
async def bot(request, api, database):
    """The bot at Telegram's pace; unpaced in a test marked `no_flood_limits`."""
    running = RunningBot(api, database, pace=None if _unlimited(request) else TELEGRAM_PACE)
    await running.start()
    yield running
    await running.stop()


@pytest.fixture
async def webbot(api, database):
    """The bot with WEBAPP_URL set, and the Mini App's routes served on 127.0.0.1."""
    running = RunningBot(api, database, webapp_url=WEBAPP_URL)
    await running.start()
    # The bot's own route sets, as its web server serves them in production.
    config = Config(token=api.token, webapp_url=WEBAPP_URL, metrics=False)
    process = running.process
    app = build_web_app(route_sets(config, running.application, process.miniapp, process.health))
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    running.web_base = f"http://127.0.0.1:{port}"
    try:
        yield running
    finally:
        await runner.cleanup()
        await running.stop()


@pytest.fixture
async def http():
    """An HTTP client for the web servers under test."""
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        yield session


@pytest.fixture
async def proxied(postgres):
    """A fresh PostgreSQL schema, reached through a proxy: (proxy, database URL)."""
    parts = urllib.parse.urlsplit(postgres)
    proxy = TcpProxy(parts.hostname or "127.0.0.1", parts.port or 5432)
    port = await proxy.start()
    try:
        yield proxy, through_proxy(postgres, port)
    finally:
        await proxy.stop()


@pytest.fixture
async def playground(tmp_path):
    """The playground in this process: emulator, bot and page on a port of their own; its
    calls are held against the Bot API afterwards, as the `api` fixture's are."""
    async with open_playground(0, tmp_path / "playground.sqlite3", poll_timeout=1) as running:
        yield running
    check_calls(running.api.requests)
