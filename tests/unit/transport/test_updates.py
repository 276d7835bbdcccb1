"""ChatOrderedProcessor: one chat's updates in order, one at a time; a busy chat never takes
the slots other chats need."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from telegram import Chat, Message, Update, User

from bot.transport.updates import MAX_WAITING, BoundedUpdateQueue, ChatOrderedProcessor


def _update(update_id: int, chat_id: int, sender: int = 1) -> Update:
    chat = Chat(chat_id, Chat.PRIVATE)
    user = User(sender, "Sender", is_bot=False)
    message = Message(update_id, datetime.now(UTC), chat, from_user=user, text="x")
    return Update(update_id, message=message)


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


async def test_a_sender_far_ahead_of_their_chat_is_refused_at_once_and_others_still_wait():
    refused: list[int] = []

    async def overflow(update: object) -> None:
        assert isinstance(update, Update)
        refused.append(update.update_id)

    processor = ChatOrderedProcessor(overflow=overflow)
    release = asyncio.Event()
    ran: list[int] = []

    async def handle(update_id: int) -> None:
        await release.wait()
        ran.append(update_id)

    group = -100
    waiting = [
        asyncio.create_task(processor.process_update(_update(i, group), handle(i)))
        for i in range(MAX_WAITING)
    ]
    await asyncio.sleep(0)
    beyond = [_update(MAX_WAITING + i, group) for i in range(50)]
    # Handled by `overflow` without waiting for the chat, their handlers never run.
    await asyncio.wait_for(
        asyncio.gather(*(processor.process_update(u, handle(u.update_id)) for u in beyond)),
        timeout=30,
    )
    assert refused == [u.update_id for u in beyond] and ran == []
    other = asyncio.create_task(
        processor.process_update(_update(999, group, sender=2), handle(999))
    )
    release.set()
    await asyncio.wait_for(asyncio.gather(*waiting, other), timeout=30)
    assert ran == [*range(MAX_WAITING), 999] and len(refused) == 50
    # Once the chat has caught up, the sender's updates wait in order again.
    await processor.process_update(_update(1000, group), handle(1000))
    assert ran[-1] == 1000 and len(refused) == 50


async def test_the_polling_queue_takes_no_more_than_the_bot_can_handle():
    queue = BoundedUpdateQueue(queued=2, in_flight=3)
    for update_id in range(2):
        await queue.put(update_id)
    blocked_put = asyncio.create_task(queue.put(2))  # the updater stops fetching here
    await asyncio.sleep(0)
    assert not blocked_put.done()
    taken = [await queue.get() for _ in range(2)]
    await asyncio.wait_for(blocked_put, timeout=30)
    taken.append(await queue.get())
    await queue.put(3)
    blocked_get = asyncio.create_task(queue.get())  # three taken and none done yet
    await asyncio.sleep(0)
    assert not blocked_get.done()
    queue.task_done()
    assert await asyncio.wait_for(blocked_get, timeout=30) == 3
    assert taken == [0, 1, 2]
