"""Flood control per chat: a group is paced, nobody else waits for it."""

from __future__ import annotations

import asyncio
import time

from bot.delivery.ratelimit import ChatRateLimiter


async def test_a_group_gets_a_few_posts_at_once_then_its_pace_and_private_chats_never_wait():
    limiter = ChatRateLimiter(group_max_rate=3, group_period=1)
    sent: dict[str, float] = {}

    async def send(name: str) -> bool:
        sent[name] = time.monotonic()
        return True

    async def request(chat_id: int, name: str) -> object:
        data = {"chat_id": chat_id}
        return await limiter.process_request(send, (name,), {}, "sendMessage", data, None)

    start = time.monotonic()
    group = [asyncio.create_task(request(-100, f"group {i}")) for i in range(6)]
    await asyncio.sleep(0)
    await request(5, "private")
    await asyncio.gather(*group)
    order = sorted(sent, key=sent.__getitem__)
    assert order.index("private") < order.index("group 5")  # not queued behind the group
    assert sent["group 5"] - start >= 0.9  # three at once, then one every third of a second


async def test_groups_that_went_quiet_are_forgotten_and_still_paced_afterwards():
    limiter = ChatRateLimiter(group_max_rate=2, group_period=0.2, max_tracked_groups=4)

    async def send() -> bool:
        return True

    async def post(chat_id: int) -> None:
        await limiter.process_request(send, (), {}, "sendMessage", {"chat_id": chat_id}, None)

    for chat_id in range(-1, -5, -1):
        await post(chat_id)
    await asyncio.sleep(0.25)  # every bucket has drained
    await post(-5)
    assert len(limiter._group_limiters) == 1  # only the group still within its period
    start = time.monotonic()
    for _ in range(3):
        await post(-5)
    assert time.monotonic() - start >= 0.09  # the third post of the burst still waited
