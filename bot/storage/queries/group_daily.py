"""The daily in groups: whether a group has opted in, and its one card per daily.

A card's row is keyed by the group and the daily, so that a second insert, from any process,
changes nothing: whoever inserted it owes the card. It is closed once (`finished`), by an
UPDATE that only one process's call can make change a row.
"""

from __future__ import annotations

from bot.models import GroupDaily
from bot.storage.queries.base import Row, StorageBase

_COLUMNS = "group_dailies.chat_id, daily_id, message_id, finished"


def _from_row(row: Row) -> GroupDaily:
    chat_id, daily_id, message_id, finished = row
    return GroupDaily(chat_id, daily_id, message_id, bool(finished))


class GroupDailyQueries(StorageBase):
    async def daily_on(self, chat_id: int) -> bool:
        """Whether the group's admins have opted it in to the daily's card."""
        row = await self._fetchrow("SELECT daily_on FROM chats WHERE chat_id = ?", (chat_id,))
        return row is not None and bool(row[0])

    async def set_daily_on(self, chat_id: int, on: bool, language: str | None) -> None:
        """Opt the group in or out; `language` is the admin's who asked (None: kept)."""
        await self._execute(
            "INSERT INTO chats (chat_id, daily_on, daily_language) VALUES (?, ?, ?) "
            "ON CONFLICT (chat_id) DO UPDATE SET daily_on = excluded.daily_on, "
            "daily_language = coalesce(excluded.daily_language, chats.daily_language)",
            (chat_id, int(on), language),
        )

    async def daily_card_language(self, chat_id: int) -> str | None:
        """The group's chosen language, else that of the admin who switched the daily on."""
        row = await self._fetchrow(
            "SELECT coalesce(language, daily_language) FROM chats WHERE chat_id = ?", (chat_id,)
        )
        return None if row is None else row[0]

    async def open_group_daily(self, chat_id: int, daily_id: int) -> bool:
        """Make the group's card row for the daily; False if one was made already."""
        return (
            await self._execute(
                "INSERT INTO group_dailies (chat_id, daily_id) VALUES (?, ?) "
                "ON CONFLICT (chat_id, daily_id) DO NOTHING",
                (chat_id, daily_id),
            )
            == 1
        )

    async def group_daily(self, chat_id: int, daily_id: int) -> GroupDaily | None:
        row = await self._fetchrow(
            f"SELECT {_COLUMNS} FROM group_dailies WHERE chat_id = ? AND daily_id = ?",
            (chat_id, daily_id),
        )
        return None if row is None else _from_row(row)

    async def set_group_daily_message(self, chat_id: int, daily_id: int, message_id: int) -> None:
        await self._execute(
            "UPDATE group_dailies SET message_id = ? WHERE chat_id = ? AND daily_id = ?",
            (message_id, chat_id, daily_id),
        )

    async def finish_group_daily(self, chat_id: int, daily_id: int) -> bool:
        """Close the group's card for the daily; False if it was closed already."""
        return (
            await self._execute(
                "UPDATE group_dailies SET finished = 1 "
                "WHERE chat_id = ? AND daily_id = ? AND finished = 0",
                (chat_id, daily_id),
            )
            == 1
        )

    async def group_dailies_ended(self, now: float) -> list[GroupDaily]:
        """Cards still open whose daily has ended by `now`: the day is to be closed there."""
        rows = await self._fetchall(
            f"""SELECT {_COLUMNS} FROM group_dailies
                JOIN dailies ON dailies.id = group_dailies.daily_id
                WHERE finished = 0 AND dailies.ends_at <= ?
                ORDER BY dailies.ends_at, group_dailies.chat_id""",
            (now,),
        )
        return [_from_row(row) for row in rows]

    async def groups_without_card(self, day: str, size: int) -> list[int]:
        """Opted-in groups that have no card yet for that day's daily of this size."""
        rows = await self._fetchall(
            """SELECT chat_id FROM chats WHERE daily_on = 1 AND NOT EXISTS (
                    SELECT 1 FROM group_dailies
                    JOIN dailies ON dailies.id = group_dailies.daily_id
                    WHERE group_dailies.chat_id = chats.chat_id
                        AND dailies.day = ? AND dailies.size = ?
                ) ORDER BY chat_id""",
            (day, size),
        )
        return [chat_id for (chat_id,) in rows]

    async def member_group_dailies(self, daily_id: int, owner_id: int) -> list[GroupDaily]:
        """The open, posted cards of the daily in opted-in groups the player is a member of:
        a group they played in, or whose challenge they joined (as daily_group_standings
        counts a group's players)."""
        rows = await self._fetchall(
            f"""SELECT {_COLUMNS} FROM group_dailies
                JOIN chats ON chats.chat_id = group_dailies.chat_id AND chats.daily_on = 1
                WHERE daily_id = ? AND finished = 0 AND message_id IS NOT NULL
                    AND EXISTS (
                        SELECT 1 FROM games WHERE games.owner_id = ? AND (
                            games.chat_id = group_dailies.chat_id
                            OR games.challenge_id IN (
                                SELECT id FROM challenges
                                WHERE challenges.chat_id = group_dailies.chat_id)))
                ORDER BY group_dailies.chat_id""",
            (daily_id, owner_id),
        )
        return [_from_row(row) for row in rows]
