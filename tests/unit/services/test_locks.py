"""ChatLocks: a chat's writes one at a time in the order they came, each one transaction,
and a number per chat that tells a redraw whether what it read is still what is saved."""

from __future__ import annotations

import asyncio

import pytest

from bot.services.locks import ChatLocks

CHAT, OTHER, PLAYER = -8100, -8200, 81


class HalfWay(Exception):
    pass


async def test_a_write_commits_whole_or_not_at_all(storage):
    locks = ChatLocks(storage)
    with pytest.raises(HalfWay):
        async with locks.writing(CHAT) as writing:
            await writing.set_chat_language(CHAT, "nl")
            await writing.set_language(PLAYER, "nl")
            raise HalfWay
    assert await storage.chat_language(CHAT) is None
    assert (await storage.player(PLAYER)).language is None
    assert locks.generation(CHAT) == 0  # nothing was written: what was read is current


async def test_a_chats_writes_run_one_at_a_time_in_the_order_they_came(storage):
    locks = ChatLocks(storage)
    order: list[str] = []

    async def choose(language: str) -> None:
        async with locks.writing(CHAT) as writing:
            order.append(language)
            await writing.set_chat_language(CHAT, language)
            await asyncio.sleep(0)  # the others are waiting at the lock meanwhile
            assert await writing.chat_language(CHAT) == language

    languages = ["en", "nl", "de", "nl", "en", "de"]
    await asyncio.gather(*(choose(language) for language in languages))
    assert order == languages
    assert await storage.chat_language(CHAT) == "de"  # the last choice is the one that stays


async def test_every_committed_write_changes_the_number_of_its_chats_only(storage):
    locks = ChatLocks(storage)
    async with locks.writing(CHAT) as writing:
        await writing.set_chat_language(CHAT, "de")
    after_one = locks.generation(CHAT)
    assert after_one != 0 and locks.generation(OTHER) == 0
    async with locks.writing(OTHER, CHAT) as writing:  # a group moving to a new id
        await writing.set_chat_language(OTHER, "de")
    assert locks.generation(CHAT) not in (0, after_one)
    assert locks.generation(OTHER) == locks.generation(CHAT)
