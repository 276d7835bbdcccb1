"""Fixtures for the end-to-end tests: the real Application, the Bot API emulator on 127.0.0.1,
a real database. Helpers live in tests/support/.

Tests act as Telegram users through the emulator and look only at what the bot sent, plus the
database where a test needs to set up a position (a board one merge from 2048, say).

Every test that uses the `database` fixture (and so `bot`) runs twice: on a SQLite file and on
PostgreSQL, in a schema of its own (see tests/support/databases.py).
"""

from __future__ import annotations

import logging

import pytest

from bot.config import TELEGRAM_PACE
from bot.emulator import TELEGRAM_LIMITS, FakeBotApi
from tests.support.databases import BACKENDS, check_replays, fresh_postgres_database
from tests.support.harness import RunningBot

# Every Bot API call is logged by httpx at INFO; the bot's own INFO lines matter more here.
logging.getLogger("httpx").setLevel(logging.WARNING)


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
def no_errors_logged(caplog):
    """Fail the test if anything was logged at ERROR: expected trouble is handled quietly."""
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
    """The emulator, enforcing Telegram's flood limits unless the test is marked otherwise."""
    async with FakeBotApi(flood=None if _unlimited(request) else TELEGRAM_LIMITS) as fake:
        yield fake


@pytest.fixture
async def bot(request, api, database):
    """The bot at Telegram's pace; unpaced in a test marked `no_flood_limits`."""
    running = RunningBot(api, database, pace=None if _unlimited(request) else TELEGRAM_PACE)
    await running.start()
    yield running
    await running.stop()
