"""A player's statistics: what /stats sums and ranks beyond the records of each board size.

Everything is read from the games as they are saved: the totals from each game's moves and
play clock, the chart from the latest games. A daily's places are kept in its games once its
day is over (daily.py's `keep_places`, by the ranking its standings use); until then, a
place is counted from that ranking's index, as the standings count it.
"""

from __future__ import annotations

from bot.models import DailyPlace, PlayedScore, PlayTotals
from bot.storage.queries.daily import DailyQueries

# A game counts once it has a move: an opened board nobody moved is no game played.
_PLAYED = "owner_id = ? AND moves > 0"


class StatsQueries(DailyQueries):
    async def play_totals(self, user_id: int) -> PlayTotals:
        """The moves and the play time of all the player's games, in every chat."""
        row = await self._fetchrow(
            f"SELECT coalesce(sum(moves), 0), "
            f"coalesce(sum({self._dialect.state_play_seconds}), 0) FROM games WHERE {_PLAYED}",
            (user_id,),
        )
        assert row is not None
        return PlayTotals(int(row[0]), float(row[1]))

    async def played_scores(self, user_id: int, limit: int) -> list[PlayedScore]:
        """The player's latest `limit` games with a move, oldest first."""
        rows = await self._fetchall(
            f"SELECT size, score, highest FROM games WHERE {_PLAYED} ORDER BY id DESC LIMIT ?",
            (user_id, limit),
        )
        return [PlayedScore(*row) for row in reversed(rows)]

    async def daily_days(self, user_id: int) -> list[str]:
        """The UTC days (YYYY-MM-DD) on which the player moved in a daily, in order."""
        rows = await self._fetchall(
            f"""SELECT DISTINCT dailies.day FROM games JOIN dailies ON dailies.id = games.daily_id
                WHERE games.{_PLAYED} ORDER BY dailies.day""",
            (user_id,),
        )
        return [row[0] for row in rows]

    async def daily_places(self, user_id: int) -> list[DailyPlace]:
        """The player's place in every daily they moved in, in the order they played them.

        A daily whose places are kept (`players` set) is read from its row and the game's:
        one row a daily. The others (today's, or one that ended a moment ago) are counted as
        `daily_rank` counts them, by the ranking's index: a few a player at most.
        """
        rows = await self._fetchall(
            f"""SELECT dailies.day, dailies.size, mine.daily_place, dailies.players, dailies.id
                FROM games mine JOIN dailies ON dailies.id = mine.daily_id
                WHERE mine.{_PLAYED} ORDER BY dailies.day, mine.id""",
            (user_id,),
        )
        places = []
        for day, size, place, players, daily_id in rows:
            if players is None:
                ranked = await self.daily_rank(daily_id, user_id)
                assert ranked is not None, "a daily the player moved in ranks them"
                place, players = ranked
            places.append(DailyPlace(day, size, place, players))
        return places
