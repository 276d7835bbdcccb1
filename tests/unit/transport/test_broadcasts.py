"""The broadcast budget: one pace for everything the bot sends on its own, in one process or
across every process on the database."""

from __future__ import annotations

import pytest

from bot.storage import StorageUnavailable, open_storage
from bot.transport.broadcasts import BROADCAST_BURST, BROADCASTS_PER_SECOND, BroadcastBudget


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Away:
    """A database out of reach."""

    async def reserve_send(self, *_: float) -> tuple[float, float]:
        raise StorageUnavailable("away")

    async def hold_back(self, *_: float) -> None:
        raise StorageUnavailable("away")


async def test_a_burst_goes_at_once_then_each_broadcast_waits_for_its_slot():
    clock = Clock()
    budget = BroadcastBudget(None, clock)
    burst = [await budget.reserve() for _ in range(int(BROADCAST_BURST))]
    assert burst == [0.0] * int(BROADCAST_BURST)
    interval = 1 / BROADCASTS_PER_SECOND
    waits = [await budget.reserve() for _ in range(3)]
    assert waits == pytest.approx([interval, 2 * interval, 3 * interval])
    clock.now += 60  # a quiet minute: a burst again, no more
    assert [await budget.reserve() for _ in range(int(BROADCAST_BURST))] == [0.0] * 5
    assert await budget.reserve() == pytest.approx(interval)


async def test_a_database_away_leaves_the_process_its_own_slots():
    clock = Clock()
    budget = BroadcastBudget(Away(), clock)
    assert [await budget.reserve() for _ in range(int(BROADCAST_BURST))] == [0.0] * 5
    assert await budget.reserve() == pytest.approx(1 / BROADCASTS_PER_SECOND)


async def test_processes_on_one_database_share_one_budget(postgres):
    stores = await open_storage(postgres), await open_storage(postgres)
    try:
        first, second = (BroadcastBudget(store) for store in stores)
        waits = [await budget.reserve() for _ in range(10) for budget in (first, second)]
    finally:
        for store in stores:
            await store.close()
    # Twenty broadcasts, ten from each: a burst, then one slot after another for both, as
    # for one process (the database's clock runs on while they reserve, so a little less).
    assert waits[: int(BROADCAST_BURST)] == [0.0] * 5
    last = (len(waits) - BROADCAST_BURST) / BROADCASTS_PER_SECOND
    assert last - 0.5 < waits[-1] <= last
    assert waits == sorted(waits)
