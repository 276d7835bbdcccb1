"""Fixtures the end-to-end tests share beyond tests/conftest.py's: a group with two players,
and a bot at Telegram's pace whose daily runs on a clock the test moves."""

from __future__ import annotations

import pytest

from bot.config import TELEGRAM_PACE
from tests.support.daily import DayClock
from tests.support.groups import GROUP
from tests.support.harness import RunningBot, User


@pytest.fixture
def club(api) -> tuple[User, User]:
    """The group "2048 Club", with Anna (English) its admin, and Bob (Dutch)."""
    anna = User(api, 101, "Anna", "en")
    bob = User(api, 202, "Bob", "nl")
    api.add_group(GROUP, "2048 Club", admins={anna.id})
    return anna, bob


@pytest.fixture
def clock() -> DayClock:
    return DayClock()


@pytest.fixture
async def daybot(api, database, clock):
    """The bot at Telegram's pace, its daily on the test's clock."""
    running = RunningBot(api, database, clock=clock, pace=TELEGRAM_PACE)
    await running.start()
    yield running
    await running.stop()
