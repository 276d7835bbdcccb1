"""ChatOrderedProcessor: one chat's updates in order, one at a time; a busy chat never takes
the slots other chats need."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from telegram import Chat, Message, Update

from bot.transport.updates import ChatOrderedProcessor


def _update(update_id: int, chat_id: int) -> Update:
    chat = Chat(chat_id, Chat.PRIVATE)
    return Update(update_id, message=Message(update_id, datetime.now(UTC), chat, text="x"))


async def test_one_chats_updates_run_one_at_a_time_in_arrival_order():
    processor = ChatOrderedProcessor()
    log: list[str] = []

    async def handle(name: str, delay: float) -> None:
        log.append(f"start {name}")
        await asyncio.sleep(delay)
        log.append(f"end {name}")

    # The first update is the slowest: without ordering, the later ones would finish first.
    await asyncio.gather(
        processor.process_update(_update(1, 7), handle("a", 0.05)),
        processor.process_update(_update(2, 7), handle("b", 0.0)),
        processor.process_update(_update(3, 7), handle("c", 0.01)),
    )
    assert log == ["start a", "end a", "start b", "end b", "start c", "end c"]


async def test_a_flooding_chat_waits_without_holding_the_slots_other_chats_need():
    processor = ChatOrderedProcessor(max_concurrent_updates=2)
    release = asyncio.Event()
    done: list[int] = []

    async def blocked(update_id: int) -> None:
        await release.wait()
        done.append(update_id)

    async def quick(update_id: int) -> None:
        done.append(update_id)

    flood = [
        asyncio.create_task(processor.process_update(_update(i, -100), blocked(i)))
        for i in range(1, 51)
    ]
    other = asyncio.create_task(processor.process_update(_update(99, 5), quick(99)))
    await asyncio.wait_for(other, timeout=30)
    assert done == [99]  # answered while the group's 50 updates still wait their turn
    release.set()
    await asyncio.wait_for(asyncio.gather(*flood), timeout=30)
    assert done[1:] == list(range(1, 51))


async def test_an_update_cancelled_before_its_turn_does_not_block_its_chat():
    processor = ChatOrderedProcessor()
    release = asyncio.Event()
    ran: list[str] = []

    async def handle(name: str) -> None:
        await release.wait()
        ran.append(name)

    first = asyncio.create_task(processor.process_update(_update(1, 3), handle("first")))
    second = asyncio.create_task(processor.process_update(_update(2, 3), handle("second")))
    await asyncio.sleep(0)
    second.cancel()
    third = asyncio.create_task(processor.process_update(_update(3, 3), handle("third")))
    release.set()
    await asyncio.wait_for(asyncio.gather(first, third), timeout=30)
    assert ran == ["first", "third"]
