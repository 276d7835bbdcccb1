"""The chats' budgets: a process's own token buckets, or the database's for all processes."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.config import Pace
from bot.storage import StorageUnavailable, open_storage
from bot.transport.budgets import JOB_TURN, DatabaseBudgets, LocalBudgets, SharedBudgets
from bot.transport.pacer import Pacer
from tests.support.databases import fresh_postgres_database
from tests.support.harness import eventually

PACE = Pace(burst=2, private_per_second=20, group_per_minute=180, recovery=0.6)
# A wait that ends only if something is broken: what is awaited is due at once, or soon.
PATIENCE = 30.0


class Clock:
    """The budgets' clock, which only the test moves: a chat waits until it does."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeDatabase:
    """The database's side of SharedBudgets: the reservations and flood waits the processes
    make, each reservation answered from `answers` (then: go now). `away` raises as a
    database out of reach does."""

    def __init__(self, answers: list[tuple[float, float]] | None = None) -> None:
        self.answers = answers or []
        self.reserved: list[tuple[int, float, float, float]] = []
        self.held: list[tuple[int, float, float, float]] = []
        self.asked_to_hold = asyncio.Event()
        self.away = False

    async def reserve_send(
        self, chat_id: int, interval: float, burst: float, recovery: float
    ) -> tuple[float, float]:
        if self.away:
            raise StorageUnavailable("the database is away")
        self.reserved.append((chat_id, interval, burst, recovery))
        return self.answers.pop(0) if self.answers else (0.0, 0.0)

    async def hold_back(self, chat_id: int, seconds: float, recovery: float, slowest: float):
        self.asked_to_hold.set()
        if self.away:
            raise StorageUnavailable("the database is away")
        self.held.append((chat_id, seconds, recovery, slowest))


class Recording:
    """A database (SharedBudgets), and an event set once a flood wait is recorded in it."""

    def __init__(self, database: SharedBudgets) -> None:
        self.database = database
        self.recorded = asyncio.Event()

    async def reserve_send(self, *args) -> tuple[float, float]:
        return await self.database.reserve_send(*args)

    async def hold_back(self, *args) -> None:
        await self.database.hold_back(*args)
        self.recorded.set()


async def pending(task: asyncio.Task) -> bool:
    """Whether the task still waits once everything ready to run has run."""
    for _ in range(5):
        await asyncio.sleep(0)
    return not task.done()


async def test_a_chat_spends_its_burst_then_waits_for_the_clock():
    clock = Clock()
    budgets = LocalBudgets(PACE, clock=clock)
    for _ in range(2):
        await budgets.take(1)
    third = asyncio.create_task(budgets.take(1))
    assert await pending(third)
    await budgets.take(2)  # another chat has a burst of its own
    clock.now += 1  # the bucket is full again
    await asyncio.wait_for(third, PATIENCE)


async def test_a_turn_waits_for_a_token_and_leaves_it_to_the_jobs_request():
    clock = Clock()
    budgets = LocalBudgets(PACE, clock=clock)
    await budgets.take(1)
    turn = await budgets.turn(1)
    assert not turn.reserved
    await budgets.take(1)  # the job's request: the token the turn left
    next_turn = asyncio.create_task(budgets.turn(1))
    assert await pending(next_turn)
    clock.now += 1  # the bucket is full again
    assert not (await asyncio.wait_for(next_turn, PATIENCE)).reserved


async def test_a_flood_wait_met_elsewhere_holds_the_chat_back_without_slowing_it():
    clock = Clock()
    budgets = LocalBudgets(PACE, clock=clock)
    budgets.hold(1, 30)  # another process met a 429: the database slows the chat
    budgets.flood_wait(2, 30)  # this process met one
    assert (budgets.held_back(1), budgets.pace_factor(1)) == (30, 1)
    assert (budgets.held_back(2), budgets.pace_factor(2)) == (30, 0.5)
    assert budgets.flood_waits() == 2
    clock.now += 30
    assert (budgets.held_back(1), budgets.flood_waits()) == (0, 0)


async def test_a_queued_jobs_send_is_reserved_before_it_draws_and_its_request_goes_out_on_it():
    database = FakeDatabase()
    pacer = Pacer(PACE, shared=database)
    reserved_at_draw: list[int] = []

    async def draw() -> None:
        reserved_at_draw.append(len(database.reserved))
        for _ in range(2):
            await pacer.take(5)  # what the rate limiter does for each of the job's requests

    pacer.post(5, draw)
    await pacer.drain(timeout=PATIENCE)
    await pacer.take(-100)  # a request not queued reserves its own send
    assert reserved_at_draw == [1]
    assert database.reserved == [
        (5, 1 / PACE.private_per_second, PACE.burst, PACE.recovery),
        (5, 1 / PACE.private_per_second, PACE.burst, PACE.recovery),
        (-100, 60 / PACE.group_per_minute, PACE.burst, PACE.recovery),
    ]


async def test_a_worker_started_from_a_job_in_another_chat_reserves_its_own_send():
    database = FakeDatabase()
    pacer = Pacer(PACE, shared=database)

    async def in_other_chat() -> None:
        await pacer.take(2)

    async def in_first_chat() -> None:
        pacer.post(2, in_other_chat)  # starts the other chat's worker from inside this job
        await asyncio.sleep(0)
        await pacer.take(1)

    pacer.post(1, in_first_chat)
    await pacer.drain(timeout=PATIENCE)
    assert sorted(chat_id for chat_id, *_ in database.reserved) == [1, 2]


async def test_unpaced_there_is_no_budget_to_share():
    database = FakeDatabase()
    pacer = Pacer(None, shared=database)
    await pacer.take(5)
    pacer.flood_wait(5, 30)
    assert pacer.held_back(5) > 0
    await asyncio.sleep(0)
    assert (database.reserved, database.held) == ([], [])


async def test_a_flood_wait_the_database_reports_holds_the_chat_back_here_too():
    clock = Clock()
    database = FakeDatabase(answers=[(0.0, 0.05)])
    budgets = DatabaseBudgets(database, PACE, clock=clock)
    take = asyncio.create_task(budgets.take(1))
    await eventually(lambda: budgets.held_back(1) > 0)
    # The database slows the chat for every process; this one says it is held back.
    assert (budgets.pace_factor(1), budgets.flood_waits()) == (1, 1)
    assert await pending(take)
    clock.now += 1  # the flood wait is over
    await asyncio.wait_for(take, PATIENCE)


async def test_a_flood_wait_met_here_is_held_here_and_recorded_for_the_other_processes():
    clock = Clock()
    database = FakeDatabase()
    budgets = DatabaseBudgets(database, PACE, clock=clock)
    budgets.flood_wait(1, 30)
    assert (budgets.held_back(1), budgets.pace_factor(1)) == (30, 0.5)
    await asyncio.wait_for(database.asked_to_hold.wait(), PATIENCE)
    assert database.held == [(1, 30, PACE.recovery, PACE.slowest)]


async def test_while_the_database_is_away_each_process_paces_the_chat_on_its_own(caplog):
    caplog.set_level(logging.WARNING)
    clock = Clock()
    database = FakeDatabase()
    database.away = True
    budgets = DatabaseBudgets(database, PACE, clock=clock)
    await budgets.take(1)
    turn = await budgets.turn(1)  # the burst's second send, reserved in this process
    token = JOB_TURN.set(turn)
    try:
        await asyncio.wait_for(budgets.take(1), PATIENCE)  # the job's request goes out on it
    finally:
        JOB_TURN.reset(token)
    third = asyncio.create_task(budgets.take(1))
    assert await pending(third)
    clock.now += 1  # the bucket is full again
    await asyncio.wait_for(third, PATIENCE)

    budgets.flood_wait(2, 30)
    assert budgets.held_back(2) == 30
    await eventually(lambda: "flood wait not shared with other processes" in caplog.text)


async def test_a_flood_wait_one_process_meets_holds_the_chat_back_in_another():
    """On the real database: the flood wait the first process records reaches the second with
    its next reservation."""
    async with fresh_postgres_database() as url:
        stores = await open_storage(url), await open_storage(url)
        try:
            recording = Recording(stores[0])
            first, second = DatabaseBudgets(recording, PACE), DatabaseBudgets(stores[1], PACE)
            first.flood_wait(-100, 30)
            await asyncio.wait_for(recording.recorded.wait(), PATIENCE)
            assert second.held_back(-100) == 0  # not until it reserves a send
            take = asyncio.create_task(second.take(-100))
            await eventually(lambda: second.held_back(-100) > 0)
            assert second.pace_factor(-100) == 1  # slowed in the database, for both
            assert await pending(take)
            take.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await take
        finally:
            for store in stores:
                await store.close()
