"""Flood control per chat: a group is paced, nobody else waits for it."""

from __future__ import annotations

import asyncio
import time

from bot.ratelimit import ChatRateLimiter


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
