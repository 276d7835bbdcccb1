"""DailyService on real storage: one daily per UTC day and size, whoever asks first and from
however many processes; one attempt per player; its commitment; its links."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace

import engine
from bot.codecs import daily_payload
from bot.services.daily import DailyService, DailyStatus, day_of
from bot.services.locks import ChatLocks
from bot.storage import Storage, open_storage
from tests.support.daily import results_set_by_hand
from tests.support.databases import disown_actions

NOON = 1_796_212_800.0  # 2026-12-02 12:00 UTC


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _service(storage: Storage, clock: Clock, seeds=None) -> DailyService:
    seeds = seeds or itertools.count(1000)
    return DailyService(storage, ChatLocks(storage), clock, new_seed=lambda: next(seeds))


def test_a_day_runs_from_midnight_to_midnight_utc():
    assert day_of(NOON) == ("2026-12-02", NOON + 12 * 3600)
    assert day_of(NOON + 12 * 3600) == ("2026-12-03", NOON + 36 * 3600)
    assert day_of(NOON + 12 * 3600 - 0.001)[0] == "2026-12-02"


async def test_one_daily_a_day_and_size_and_one_attempt_each(storage):
    clock = Clock(NOON)
    daily = _service(storage, clock)
    anna = await daily.play(101, 4)
    bob = await daily.play(202, 4)
    assert anna.status is bob.status is DailyStatus.STARTED
    assert anna.daily == bob.daily and anna.entry is not None and bob.entry is not None
    assert anna.entry.game.board == bob.entry.game.board and anna.entry.id != bob.entry.id
    assert anna.entry.closes_at == anna.daily.ends_at == NOON + 12 * 3600
    again = await daily.play(101, 4)
    assert again.status is DailyStatus.RESUMED and again.entry == anna.entry
    five = await daily.play(101, 5)
    assert five.daily is not None and five.daily.id != anna.daily.id
    clock.now += 12 * 3600  # midnight: a new day, a new seed
    tomorrow = await daily.play(101, 4)
    assert tomorrow.status is DailyStatus.STARTED and tomorrow.daily.day == "2026-12-03"
    assert tomorrow.daily.seed != anna.daily.seed


async def test_the_commitment_binds_seed_size_and_day(storage):
    played = await _service(storage, Clock(NOON)).play(101, 6)
    daily = played.daily
    assert daily is not None and len(daily.salt) == 32  # 128 bits of salt
    assert daily.commitment == engine.commitment(daily.salt, daily.seed, 6, "2026-12-02")
    assert daily.commitment != engine.commitment(daily.salt, daily.seed + 1, 6, "2026-12-02")
    assert daily.commitment != engine.commitment(daily.salt, daily.seed, 5, "2026-12-02")
    assert daily.commitment != engine.commitment(daily.salt, daily.seed, 6, "2026-12-03")


async def test_a_finished_attempt_stays_finished(storage):
    daily = _service(storage, Clock(NOON))
    played = await daily.play(101, 4)
    assert played.entry is not None
    stuck = replace(played.entry.game, board=(2, 4) * 2 + (4, 2) * 2 + (2, 4) * 2 + (4, 2) * 2)
    assert stuck.over
    async with storage.transaction():
        await storage.update_game(played.entry, stuck, NOON, played_counted=True, action="left")
        await disown_actions(storage, played.entry.id)
    finished = await daily.play(101, 4)
    assert finished.status is DailyStatus.FINISHED and finished.entry.id == played.entry.id


async def test_links_to_today_play_and_older_ones_show_that_day(storage):
    clock = Clock(NOON)
    daily = _service(storage, clock)
    today = await daily.open_link(daily_payload("2026-12-02", 4), 101)
    assert today.status is DailyStatus.STARTED
    clock.now += 24 * 3600
    old = await daily.open_link(daily_payload("2026-12-02", 4), 101)
    assert old.status is DailyStatus.OLD and old.entry == today.entry
    never = await daily.open_link(daily_payload("2026-12-01", 4), 101)
    assert never.status is DailyStatus.OLD and never.daily is None
    for forged in (daily_payload("2026-12-04", 4), "daily2026-12-03_4", "daily20261203_7"):
        assert (await daily.open_link(forged, 101)).status is DailyStatus.INVALID


async def test_processes_asking_at_once_agree_on_one_seed(postgres):
    """Two processes, each its own connection pool and seeds: the first insert wins."""
    stores = [await open_storage(postgres) for _ in range(2)]
    try:
        services = [
            _service(store, Clock(NOON), itertools.count(start, 2))
            for store, start in zip(stores, (1, 2), strict=True)
        ]
        played = await asyncio.gather(
            *(service.play(user, 4) for user in range(100, 110) for service in services)
        )
    finally:
        for store in stores:
            await store.close()
    assert len({result.daily for result in played}) == 1
    assert len({result.entry.game.board for result in played if result.entry}) == 1


async def test_rankings_go_by_score_then_fewer_moves_then_the_earlier_finish(storage):
    clock = Clock(NOON)
    daily = _service(storage, clock)
    # (user, score, moves, when the score was reached): set by hand, so no replay.
    results = [(1, 500, 90, 5.0), (2, 700, 120, 9.0), (3, 500, 80, 7.0), (4, 500, 80, 6.0)]
    await results_set_by_hand(storage, daily, results, NOON)
    await daily.play(5, 4)  # started, never moved: not ranked
    played = await daily.play(1, 4)
    assert played.daily is not None
    top = await storage.daily_top(played.daily.id, 3)
    assert [s.user_id for s in top] == [2, 4, 3] and [s.rank for s in top] == [1, 2, 3]
    ranks = {user: await storage.daily_rank(played.daily.id, user) for user in range(1, 6)}
    assert ranks == {1: (4, 4), 2: (1, 4), 3: (3, 4), 4: (2, 4), 5: None}
