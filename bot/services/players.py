"""Players and group chats: names for leaderboards, chosen languages and board views."""

from __future__ import annotations

from cachetools import LRUCache

from bot.models import Player
from bot.services.locks import ChatLocks
from bot.storage import Storage

KNOWN_NAMES_LIMIT = 100_000  # players whose saved name is remembered in memory


class PlayerService:
    def __init__(self, storage: Storage, locks: ChatLocks) -> None:
        self.storage = storage
        self._locks = locks
        # Names already saved, so an unchanged name costs no database write per update; only
        # a cache: forgetting a player costs them one write on their next update.
        self._known_names: LRUCache[int, str] = LRUCache(KNOWN_NAMES_LIMIT)

    async def player(self, user_id: int) -> Player:
        return await self.storage.player(user_id)

    async def chat_language(self, chat_id: int) -> str | None:
        return await self.storage.chat_language(chat_id)

    async def remember_name(self, chat_id: int, user_id: int, name: str) -> None:
        """Keep the name current, so leaderboards show a renamed player's new name."""
        if self._known_names.get(user_id) == name:
            return
        async with self._locks.writing(chat_id) as storage:
            await storage.remember_name(user_id, name)
        self._known_names[user_id] = name

    async def set_language(self, chat_id: int, user_id: int, language: str) -> None:
        async with self._locks.writing(chat_id) as storage:
            await storage.set_language(user_id, language)

    async def set_view(self, chat_id: int, user_id: int, view: str) -> None:
        async with self._locks.writing(chat_id) as storage:
            await storage.set_view(user_id, view)

    async def set_chat_language(self, chat_id: int, language: str) -> None:
        async with self._locks.writing(chat_id) as storage:
            await storage.set_chat_language(chat_id, language)
