"""ReminderService on real storage: who asked is owed one reminder a day, from the next
midnight on, however many processes pick at once; none for a day already over."""

from __future__ import annotations

import asyncio

from bot.models import ObligationKind
from bot.services.locks import ChatLocks
from bot.services.outbox import Outbox
from bot.services.reminders import PER_TURN, TURN_SECONDS, ReminderService, day_number
from bot.storage import Storage, open_storage

NOON = 1_796_212_800.0  # 2026-12-02 12:00 UTC
MIDNIGHT = NOON + 12 * 3600  # 2026-12-03 00:00 UTC
DAY = 24 * 3600


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _service(storage: Storage, clock: Clock, holder: str = "a") -> ReminderService:
    return ReminderService(storage, ChatLocks(storage), Outbox(storage, clock, holder), clock)


async def _owe_all(service: ReminderService, clock: Clock) -> list[int]:
    """Every reminder the service owes today, turn after turn: the players, in order."""
    owed: list[int] = []
    while batch := await service.owe_due():
        assert all(o.kind is ObligationKind.DAILY_REMINDER for o in batch)
        owed += [o.chat_id for o in batch]
        clock.now += TURN_SECONDS
    return owed


async def test_only_who_asked_is_reminded_once_a_day_from_the_next_midnight(storage):
    clock = Clock(NOON)
    reminders = _service(storage, clock)
    left = await reminders.switch_on(101)
    await reminders.switch_on(202)
    assert left == 12 * 3600  # the first one comes when the next daily opens
    assert await _owe_all(reminders, clock) == []  # nothing for the daily already open

    clock.now = MIDNIGHT + 1
    (anna, bob) = await reminders.owe_due()
    assert (anna.chat_id, bob.chat_id) == (101, 202)
    assert anna.subject_id == day_number("2026-12-03") == 20261203
    assert await reminders.due_day(anna) == "2026-12-03"
    clock.now += TURN_SECONDS
    assert await _owe_all(reminders, clock) == []  # once a day

    clock.now = MIDNIGHT + DAY + 1
    assert await _owe_all(reminders, clock) == [101, 202]


async def test_asking_again_keeps_the_day_and_off_stops_it(storage):
    clock = Clock(MIDNIGHT + 1)
    reminders = _service(storage, clock)
    await reminders.switch_on(101)
    await reminders.switch_on(202)
    clock.now = MIDNIGHT + DAY + 1
    # Asked again in the first second of a day, before its reminder went: still reminded.
    await reminders.switch_on(101)
    assert await reminders.switch_off(202)
    assert not await reminders.switch_off(202)  # off already
    assert await _owe_all(reminders, clock) == [101]
    clock.now = MIDNIGHT + 2 * DAY + 1
    assert await _owe_all(reminders, clock) == [101]


async def test_a_reminder_owed_before_off_or_for_a_day_gone_is_not_sent(storage):
    clock = Clock(NOON)
    reminders = _service(storage, clock)
    for player in (101, 202):
        await reminders.switch_on(player)
    clock.now = MIDNIGHT + 1
    anna, bob = await reminders.owe_due()
    await reminders.switch_off(bob.chat_id)
    assert await reminders.due_day(anna) == "2026-12-03"
    assert await reminders.due_day(bob) is None  # switched off since it was owed
    clock.now = MIDNIGHT + DAY  # it never went that day: too late now
    assert await reminders.due_day(anna) is None


async def test_after_days_away_a_player_is_owed_today_s_reminder_alone(storage):
    clock = Clock(NOON)
    reminders = _service(storage, clock)
    await reminders.switch_on(101)
    clock.now = MIDNIGHT + 3 * DAY + 7 * 3600  # the bot was down for three midnights
    (owed,) = await reminders.owe_due()
    assert owed.subject_id == day_number("2026-12-06")
    clock.now += TURN_SECONDS
    assert await _owe_all(reminders, clock) == []


async def test_a_turn_owes_a_batch_and_the_turns_are_one_at_a_time(storage):
    clock = Clock(NOON)
    first, second = _service(storage, clock, "a"), _service(storage, clock, "b")
    players = list(range(1, 2 * PER_TURN + 6))
    for player in players:
        await first.switch_on(player)
    clock.now = MIDNIGHT
    assert len(await first.owe_due()) == PER_TURN
    assert await second.owe_due() == [], "another process's turn is not over"
    clock.now += TURN_SECONDS
    assert len(await second.owe_due()) == PER_TURN
    clock.now += TURN_SECONDS
    assert len(await first.owe_due()) == 5
    owed = await storage.owed("c", clock.now + 60, 1000)  # every lease run out
    assert sorted(o.chat_id for o in owed) == players


async def test_processes_picking_at_once_owe_each_player_one_reminder(database):
    """Four processes on their own connections look at the same moments: every player is
    owed exactly one reminder, and no turn owes more than its batch."""
    clock = Clock(NOON)
    stores = [await open_storage(database) for _ in range(4)]
    try:
        services = [_service(store, clock, f"p{i}") for i, store in enumerate(stores)]
        players = list(range(1, 4 * PER_TURN + 1))
        for player in players:
            await services[0].switch_on(player)
        clock.now = MIDNIGHT + 1
        owed: list[int] = []
        for _ in range(len(players)):
            batches = await asyncio.gather(*(service.owe_due() for service in services))
            assert sum(1 for batch in batches if batch) <= 1, "one turn at a time"
            owed += [o.chat_id for batch in batches for o in batch]
            if not any(batches) and not await stores[0].reminders_due("2026-12-03"):
                break
            clock.now += TURN_SECONDS
        assert sorted(owed) == players
    finally:
        for store in stores:
            await store.close()
