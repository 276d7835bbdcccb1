"""The daily's reminders: who asked for one, and the day each was last reminded of.

A player's `reminded_day` is NULL when they asked for no reminder; once they switch it on it
holds the day they did (no reminder of a daily already open), then the last day a reminder
was owed to them. Owing the day's reminders is one statement that picks a batch of players
and moves their day on, so that processes picking at once never pick the same player twice.
"""

from __future__ import annotations

from bot.storage.queries.base import StorageBase

_TURN = "daily-reminders"  # the job_claims row of the reminders' turns


class ReminderQueries(StorageBase):
    async def reminded_day(self, user_id: int) -> str | None:
        """The day the player was last reminded of (or switched on); None: no reminder."""
        row = await self._fetchrow("SELECT reminded_day FROM players WHERE user_id = ?", (user_id,))
        return None if row is None else row[0]

    async def switch_reminder_on(self, user_id: int, day: str) -> None:
        """Remind the player from the day after `day`; one already on keeps its day, so a
        second `/daily remind` early in a day does not skip that day's reminder."""
        await self._execute(
            "INSERT INTO players (user_id, reminded_day) VALUES (?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET "
            "reminded_day = coalesce(players.reminded_day, excluded.reminded_day)",
            (user_id, day),
        )

    async def switch_reminder_off(self, user_id: int) -> bool:
        """No more reminders for the player; whether they had one on."""
        changed = await self._execute(
            "UPDATE players SET reminded_day = NULL WHERE user_id = ? AND reminded_day IS NOT NULL",
            (user_id,),
        )
        return changed == 1

    async def reminders_due(self, day: str) -> bool:
        """Whether a player is still owed `day`'s reminder: a read, so that a look that
        finds none (nearly every look, after the day's first minutes) writes nothing."""
        row = await self._fetchrow("SELECT 1 FROM players WHERE reminded_day < ? LIMIT 1", (day,))
        return row is not None

    async def take_reminder_turn(self, now: float, until: float) -> bool:
        """Inside a transaction: the reminders' turn, until `until`, unless another process
        holds it still. One turn at a time across processes keeps their sum to one pace."""
        row = await self._fetchrow(
            "INSERT INTO job_claims (name, until) VALUES (?, ?) ON CONFLICT (name) "
            "DO UPDATE SET until = excluded.until WHERE job_claims.until <= ? RETURNING 1",
            (_TURN, until, now),
        )
        return row is not None

    async def mark_reminded(self, day: str, limit: int) -> list[int]:
        """Inside a transaction: up to `limit` players not yet reminded of `day`, now marked
        reminded; their ids.

        The outer condition is checked again on each row: a player another process marked
        meanwhile (PostgreSQL re-reads a row it waited for) is left out, not picked twice.
        """
        rows = await self._fetchall(
            "UPDATE players SET reminded_day = ? WHERE reminded_day < ? AND user_id IN "
            "(SELECT user_id FROM players WHERE reminded_day < ? ORDER BY reminded_day LIMIT ?) "
            "RETURNING user_id",
            (day, day, day, limit),
        )
        return sorted(user_id for (user_id,) in rows)
