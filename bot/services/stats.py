"""A player's statistics: their records, totals, daily streaks and places, read together.

Nothing here writes: every figure is read from what the games and records already hold, so
/stats needs no lock and can never disagree with /best or the daily's standings. The
streaks are a plain function of the days played, tested on their own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import date, timedelta

from bot.models import DailyPlace
from bot.outcomes import PlayerStats, Streaks
from bot.services.daily import day_of
from bot.storage import Storage

CHARTED = 30  # the latest games the picture charts


def streaks(days: Iterable[date], today: date) -> Streaks:
    """The current and the longest run of consecutive days among `days`.

    The current run is alive while today's daily may still be played: it ends today or
    yesterday; a run that ended before yesterday is over, and the current streak is 0.
    """
    longest = run = 0
    previous: date | None = None
    for day in sorted(set(days)):
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    alive = previous is not None and today - previous <= timedelta(days=1)
    return Streaks(run if alive else 0, longest)


def best_place(places: Iterable[DailyPlace]) -> DailyPlace | None:
    """The best of the player's daily places: the lowest rank, among more players on a tie,
    then the latest."""
    best = None
    for place in places:
        if best is None or (place.rank, -place.players) <= (best.rank, -best.players):
            best = place
    return best


class StatsService:
    def __init__(self, storage: Storage, clock: Callable[[], float] = time.time) -> None:
        self._storage = storage
        self._clock = clock

    def _today(self) -> date:
        return date.fromisoformat(day_of(self._clock())[0])

    async def streaks(self, user_id: int) -> Streaks:
        """The player's daily streaks as of today (UTC)."""
        days = await self._storage.daily_days(user_id)
        return streaks(map(date.fromisoformat, days), self._today())

    async def of(self, user_id: int) -> PlayerStats:
        """Everything /stats shows of the player."""
        storage = self._storage
        places = await storage.daily_places(user_id)
        return PlayerStats(
            records=await storage.records(user_id),
            totals=await storage.play_totals(user_id),
            streaks=streaks((date.fromisoformat(p.day) for p in places), self._today()),
            best_daily=best_place(places),
            last_daily=places[-1] if places else None,
            recent=await storage.played_scores(user_id, CHARTED),
        )
