"""/healthz's answer: reused for a second, and one bounded probe of the database at a time."""

from __future__ import annotations

import asyncio

import pytest

from bot.transport.telegram_health import TelegramHealth
from bot.web import health as health_module
from bot.web.health import CACHE_SECONDS, Health


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Database:
    """A probe that counts its queries; `hang` makes them never answer, `fail` fail."""

    def __init__(self) -> None:
        self.queries = 0
        self.hang = False
        self.fail = False
        self.back = asyncio.Event()

    async def probe(self) -> int:
        self.queries += 1
        if self.hang:
            await self.back.wait()
        if self.fail:
            raise ConnectionResetError("gone")
        return 1


def serving_health(database: Database, clock: Clock) -> Health:
    health = Health(clock=clock)
    health.opened(database.probe, TelegramHealth(60.0, clock=clock))
    health.start_serving()
    return health


async def test_it_waits_for_the_database_then_telegram_and_says_so_when_stopping():
    database = Database()
    health = Health()
    assert await health.trouble() == "opening the database"
    assert health.phase == "opening the database"  # every other route is refused with it
    health.opened(database.probe, TelegramHealth(60.0))
    assert await health.trouble() == "waiting for Telegram"
    health.start_serving()
    assert await health.trouble() is None
    health.stop_serving()
    assert await health.trouble() == "stopping"
    assert database.queries == 1


async def test_a_thousand_requests_in_a_second_cost_one_query():
    database, clock = Database(), Clock()
    health = serving_health(database, clock)
    answers = await asyncio.gather(*(health.trouble() for _ in range(1000)))
    assert answers == [None] * 1000
    clock.now += CACHE_SECONDS / 2
    assert await health.trouble() is None
    assert database.queries == 1
    clock.now += CACHE_SECONDS
    database.fail = True
    assert await health.trouble() == "the database cannot be used (ConnectionResetError)"
    assert database.queries == 2


async def test_a_database_that_swallows_queries_gets_one_probe_and_a_503_in_time(monkeypatch):
    monkeypatch.setattr(health_module, "DATABASE_TIMEOUT", 0.05)
    database, clock = Database(), Clock()
    database.hang = True
    health = serving_health(database, clock)
    for _ in range(5):
        answers = await asyncio.gather(*(health.trouble() for _ in range(50)))
        assert set(answers) == {"the database did not answer within 0.05 s"}
        clock.now += CACHE_SECONDS
    assert database.queries == 1  # the first probe still hangs: no second one piles up
    database.hang = False
    database.back.set()  # the hung query ends at last; the next probe finds it done
    await asyncio.sleep(0)
    assert await health.trouble() is None
    assert database.queries == 2


@pytest.mark.errors_expected
async def test_another_poller_makes_it_unhealthy_for_a_minute():
    database, clock = Database(), Clock()
    telegram = TelegramHealth(60.0, clock=clock)
    health = Health(clock=clock)
    health.opened(database.probe, telegram)
    health.start_serving()
    telegram.answered(409)
    assert await health.trouble() == (
        "another process polls this bot's token (409 Conflict from Telegram)"
    )
    clock.now += 59
    telegram.answered(200)
    assert await health.trouble() is not None
    clock.now += 2
    assert await health.trouble() is None
