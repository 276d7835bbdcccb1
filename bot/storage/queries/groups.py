"""Group chats: the language a group chose, its leaderboard, and its move to a supergroup.

A group's move hands back the open challenges it moved, read as the challenges' queries read
them: the group chats' queries build on those.
"""

from __future__ import annotations

from bot.models import Challenge, Standing
from bot.storage.queries.challenges import ChallengeQueries
from bot.storage.queries.games import standings


class GroupQueries(ChallengeQueries):
    async def chat_language(self, chat_id: int) -> str | None:
        row = await self._fetchrow("SELECT language FROM chats WHERE chat_id = ?", (chat_id,))
        return None if row is None else row[0]

    async def set_chat_language(self, chat_id: int, language: str) -> None:
        await self._execute(
            "INSERT INTO chats (chat_id, language) VALUES (?, ?) "
            "ON CONFLICT (chat_id) DO UPDATE SET language = excluded.language",
            (chat_id, language),
        )

    async def move_chat(self, old: int, new: int) -> list[Challenge]:
        """Give group `new` everything of group `old`: games, challenges, language and daily.

        Telegram upgrades a basic group to a supergroup under a new id. The messages stay in
        the old chat, so boards and cards forget their message (the next one is posted in the
        new chat). A player with a running game in both keeps the newer, the new chat's.
        Returns the open challenges moved; moving twice moves nothing the second time.
        """
        await self._serialize(f"chat:{old}")
        moved = await self._fetchall(
            "SELECT id FROM challenges WHERE chat_id = ? AND finished = 0 ORDER BY ends_at",
            (old,),
        )
        await self._execute(
            "UPDATE games SET active = 0 "
            "WHERE chat_id = ? AND active = 1 AND challenge_id IS NULL AND owner_id IN ("
            "SELECT owner_id FROM games WHERE chat_id = ? AND active = 1 AND challenge_id IS NULL)",
            (old, new),
        )
        await self._execute(
            "UPDATE games SET chat_id = ?, message_id = NULL WHERE chat_id = ?", (new, old)
        )
        await self._execute(
            "UPDATE challenges SET chat_id = ?, message_id = NULL WHERE chat_id = ?", (new, old)
        )
        await self._execute(
            "UPDATE group_dailies SET chat_id = ?, message_id = NULL WHERE chat_id = ?", (new, old)
        )
        await self._execute(
            "INSERT INTO chats (chat_id, language, daily_on, daily_language) "
            "SELECT ?, language, daily_on, daily_language FROM chats WHERE chat_id = ? "
            "ON CONFLICT (chat_id) DO NOTHING",
            (new, old),
        )
        await self._execute("DELETE FROM chats WHERE chat_id = ?", (old,))
        challenges = [await self.challenge(challenge_id) for (challenge_id,) in moved]
        return [challenge for challenge in challenges if challenge is not None]

    async def group_leaderboard(
        self, chat_id: int, size: int, limit: int, asker: int | None = None
    ) -> list[Standing]:
        return await standings(
            self, "chat_id = ? AND size = ? AND challenge_id IS NULL", (chat_id, size), limit, asker
        )
