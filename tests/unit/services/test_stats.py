"""A player's statistics: streaks and the best daily place as plain functions, and
StatsService on real storage (SQLite and PostgreSQL), against what the games hold."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

import engine
from bot.models import DailyPlace, PlayedScore
from bot.outcomes import Streaks
from bot.services.daily import DAY_SECONDS, DailyService
from bot.services.games import GameService
from bot.services.locks import ChatLocks
from bot.services.stats import StatsService, best_place, streaks
from bot.storage import Storage
from tests.support.daily import results_set_by_hand

NOON = 1_796_212_800.0  # 2026-12-02 12:00 UTC
TODAY = date(2026, 12, 2)
ANNA, BOB = 101, 202


def _days(*back: int) -> list[date]:
    return [TODAY - timedelta(days=n) for n in back]


def test_no_daily_played_is_no_streak():
    assert streaks([], TODAY) == Streaks(0, 0)


def test_a_run_up_to_today_is_the_current_streak():
    assert streaks(_days(2, 1, 0), TODAY) == Streaks(3, 3)


def test_a_run_up_to_yesterday_is_still_alive_until_today_ends():
    assert streaks(_days(3, 2, 1), TODAY) == Streaks(3, 3)


def test_a_missed_day_ends_the_run_and_the_longest_stays():
    assert streaks(_days(12, 11, 10, 9, 8, 1, 0), TODAY) == Streaks(2, 5)
    assert streaks(_days(4, 3, 2), TODAY) == Streaks(0, 3)


def test_several_sizes_on_one_day_count_that_day_once():
    assert streaks(_days(1, 1, 0, 0, 0), TODAY) == Streaks(2, 2)


def test_a_run_across_a_month_and_a_year_counts_on():
    days = [date(2026, 12, 30), date(2026, 12, 31), date(2027, 1, 1)]
    assert streaks(days, date(2027, 1, 1)) == Streaks(3, 3)


def test_the_best_daily_place_is_the_lowest_rank_then_the_larger_field():
    first_of_two = DailyPlace("2026-12-01", 4, 1, 2)
    first_of_nine = DailyPlace("2026-11-20", 5, 1, 9)
    second = DailyPlace("2026-12-02", 4, 2, 50)
    assert best_place([second, first_of_two, first_of_nine]) == first_of_nine
    assert best_place([]) is None


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def _play(games: GameService, clock: Clock, chat: int, user: int, game_id: int, n: int):
    """`n` moves that move, each 5 s after the last."""
    stored = None
    for _ in range(n):
        for direction in engine.DIRECTIONS:
            clock.now += 5
            result = await games.tap(chat, user, game_id, direction)
            if result.changed:
                stored = result.stored
                break
        else:
            raise AssertionError("no move left")
    assert stored is not None
    return stored


async def test_stats_sum_and_rank_what_the_games_hold(storage: Storage):
    clock = Clock(NOON - 3 * DAY_SECONDS)
    locks = ChatLocks(storage)
    seeds = iter(range(1000, 2000))
    games = GameService(storage, locks, clock=clock, new_seed=lambda: next(seeds))
    daily = DailyService(storage, locks, clock, new_seed=lambda: next(seeds))
    stats = StatsService(storage, clock)

    played = []
    for size, moves in ((4, 6), (5, 3)):
        stored = await games.start(ANNA, ANNA, size)
        played.append(await _play(games, clock, ANNA, ANNA, stored.id, moves))
    await games.start(ANNA, ANNA, 6)  # opened, never moved: no game played
    # Dailies on three days in a row, then a day missed, then today; Bob plays one of them.
    for day in (0, 1, 2, 4):
        clock.now = NOON - 4 * DAY_SECONDS + day * DAY_SECONDS
        attempt = await daily.play(ANNA, 4)
        assert attempt.entry is not None
        played.append(await _play(games, clock, ANNA, ANNA, attempt.entry.id, 2 + day))
    bob = await daily.play(BOB, 4)
    assert bob.entry is not None and bob.daily is not None
    await _play(games, clock, BOB, BOB, bob.entry.id, 9)

    figures = await stats.of(ANNA)
    assert figures.recent == [
        PlayedScore(s.game.size, s.game.score, s.game.highest) for s in played
    ]
    assert figures.totals.moves == sum(s.game.moves for s in played) == 6 + 3 + 2 + 3 + 4 + 6
    assert figures.totals.play_seconds == sum(s.game.play_seconds for s in played)
    assert figures.totals.play_seconds > 0
    assert set(figures.records) == {4, 5}
    assert figures.games_played == 6 and figures.records[5].games_played == 1
    assert figures.best_score == max(s.game.score for s in played)
    assert figures.streaks == Streaks(current=1, longest=3)
    assert await stats.streaks(ANNA) == figures.streaks

    today = await storage.daily_rank(bob.daily.id, ANNA)
    assert today is not None and today[1] == 2
    assert figures.last_daily == DailyPlace(bob.daily.day, 4, *today)
    # Alone on the three first days: first of one each, the latest of them the best.
    assert figures.best_daily is not None
    if today[0] == 1:
        assert figures.best_daily == figures.last_daily  # first of two beats first of one
    else:
        assert figures.best_daily == DailyPlace("2026-11-30", 4, 1, 1)

    bob_figures = await stats.of(BOB)
    assert bob_figures.records[4].games_played == 1 and bob_figures.streaks == Streaks(1, 1)
    assert bob_figures.last_daily == DailyPlace(bob.daily.day, 4, 3 - today[0], 2)


async def test_a_new_player_has_no_statistics(storage: Storage):
    figures = await StatsService(storage, Clock(NOON)).of(ANNA)
    assert figures.records == {} and figures.recent == [] and figures.totals.moves == 0
    assert figures.streaks == Streaks(0, 0)
    assert figures.best_daily is None and figures.last_daily is None


# Each day's results, set by hand (user, score, moves, seconds into the day the score was
# reached), with every kind of tie the ranking breaks: on score, on moves, on the time, and
# all three alike (the user's id then decides). Bob is at the top of one day, the bottom of
# another, and away on the third.
TIED_DAYS = (
    [(1, 500, 90, 5.0), (2, 700, 120, 9.0), (3, 500, 80, 7.0), (4, 500, 80, 6.0)],
    [(2, 300, 40, 1.0), (3, 300, 40, 1.0), (1, 300, 40, 1.0), (5, 300, 41, 0.5), (6, 0, 1, 0)],
    [(6, 900, 70, 2.0), (5, 900, 70, 2.0), (4, 800, 60, 3.0), (3, 900, 69, 8.0)],
)


async def test_kept_places_are_the_live_ranking_of_every_day_over(storage: Storage):
    first_noon = NOON - len(TIED_DAYS) * DAY_SECONDS
    clock = Clock(first_noon)
    seeds = iter(range(3000, 4000))
    daily = DailyService(storage, ChatLocks(storage), clock, new_seed=lambda: next(seeds))
    stats = StatsService(storage, clock)
    players = sorted({user for day in TIED_DAYS for user, *_ in day})
    for index, results in enumerate(TIED_DAYS):
        clock.now = first_noon + index * DAY_SECONDS
        await results_set_by_hand(storage, daily, results, clock.now)
        await daily.play(7, 4)  # opened, never moved: no place
    clock.now = NOON  # today, before any place is kept: all counted live
    live = {user: await stats.of(user) for user in players}
    assert [live[user].last_daily for user in (1, 2, 3, 5, 6, 4)] == [
        DailyPlace("2026-11-30", 4, 1, 5),
        DailyPlace("2026-11-30", 4, 2, 5),
        *(DailyPlace("2026-12-01", 4, rank, 4) for rank in (1, 2, 3, 4)),
    ]
    assert live[3].best_daily == DailyPlace("2026-12-01", 4, 1, 4)

    # The last day ended less than a minute ago: its places are not final yet.
    clock.now = NOON - 12 * 3600 + 30
    assert await daily.keep_places() == 4 + 5
    clock.now = NOON  # today: the three days over are placed at the first look
    assert await daily.keep_places() == 4
    assert await daily.keep_places() == 0
    other_process = DailyService(storage, ChatLocks(storage), clock)
    assert await other_process.keep_places() == 0  # placed already

    kept = await storage._fetchall(
        "SELECT games.daily_id, games.owner_id, games.daily_place, dailies.players "
        "FROM games JOIN dailies ON dailies.id = games.daily_id WHERE games.moves > 0"
    )
    assert len(kept) == sum(map(len, TIED_DAYS))
    for daily_id, owner_id, place, counted in kept:
        assert await storage.daily_rank(daily_id, owner_id) == (place, counted)
    assert {user: await stats.of(user) for user in players} == live

    # What /stats reads of a day over is what was kept, and today's place is counted live.
    async with storage.transaction():
        await storage._execute("UPDATE games SET score = 0 WHERE owner_id = 2")
    today = await daily.play(3, 4)
    assert today.entry is not None and today.daily is not None
    async with storage.transaction():
        await storage._execute(
            "UPDATE games SET score = 4, moves = 1, actions = NULL WHERE id = ?",
            (today.entry.id,),
        )
    assert (await stats.of(2)).last_daily == live[2].last_daily
    figures = await stats.of(3)
    assert figures.best_daily == live[3].best_daily
    assert figures.last_daily == DailyPlace(today.daily.day, 4, 1, 1)


async def test_a_day_larger_than_a_batch_is_placed_across_runs_cut_off_between_batches(
    storage: Storage, monkeypatch
):
    """A day is placed a batch a transaction (a day of a million players in one statement
    would outlast the database's statement timeout, and be retried and refused forever). A
    run cut off between two batches keeps the first: /stats still counts that day live
    until the last batch, and the next run places the rest, the same as the live ranking."""
    monkeypatch.setattr("bot.services.daily.PLACES_PER_BATCH", 2)
    clock = Clock(NOON - DAY_SECONDS)
    seeds = iter(range(5000, 6000))
    daily = DailyService(storage, ChatLocks(storage), clock, new_seed=lambda: next(seeds))
    stats = StatsService(storage, clock)
    results = TIED_DAYS[1]  # five ranked players, and every kind of tie
    await results_set_by_hand(storage, daily, results, clock.now)
    clock.now = NOON
    live = {user: await stats.of(user) for user, *_ in results}

    batches = []
    keep = storage.keep_places

    async def cut_off_after_two(daily_id: int, limit: int) -> int:
        if len(batches) == 2:
            raise TimeoutError("the job's time is up")
        batches.append(await keep(daily_id, limit))
        return batches[-1]

    monkeypatch.setattr(storage, "keep_places", cut_off_after_two)
    with pytest.raises(TimeoutError):
        await daily.keep_places()
    assert batches == [2, 2]
    placed = await storage._fetchall("SELECT daily_place FROM games WHERE daily_place IS NOT NULL")
    assert sorted(place for (place,) in placed) == [1, 2, 3, 4]
    assert {user: await stats.of(user) for user, *_ in results} == live  # still counted live

    monkeypatch.setattr(storage, "keep_places", keep)
    assert await daily.keep_places() == 1  # the fifth place, and the day is placed
    assert await daily.keep_places() == 0
    (players,) = (await storage._fetchall("SELECT players FROM dailies"))[0]
    assert players == 5
    assert {user: await stats.of(user) for user, *_ in results} == live
