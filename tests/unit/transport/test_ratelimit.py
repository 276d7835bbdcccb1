"""Flood control per chat: sends and edits at the chat's pace, a 429 holds back only its chat."""

from __future__ import annotations

import asyncio
import time

import pytest
from telegram.error import RetryAfter

from bot.config import Pace
from bot.transport.broadcasts import (
    BROADCAST_BURST,
    BROADCASTS_PER_SECOND,
    BroadcastBudget,
    broadcasting,
)
from bot.transport.pacer import Pacer
from bot.transport.ratelimit import ChatRateLimiter

PACE = Pace(burst=3, private_per_second=20, group_per_minute=180)


class FakeTelegram:
    """The callback the rate limiter wraps: records calls, answers 429 when told to."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []
        self.floods: list[int] = []

    async def __call__(self, name: str) -> bool:
        self.calls.append((name, time.monotonic()))
        if self.floods:
            raise RetryAfter(self.floods.pop())
        return True


async def request(limiter: ChatRateLimiter, telegram: FakeTelegram, endpoint: str, **data):
    return await limiter.process_request(telegram, (endpoint,), {}, endpoint, data, None)


async def test_sends_and_edits_share_the_chat_pace_but_answers_never_wait():
    limiter = ChatRateLimiter(Pacer(PACE), BroadcastBudget(None))
    telegram = FakeTelegram()
    start = time.monotonic()
    group = [
        asyncio.create_task(request(limiter, telegram, method, chat_id=-100))
        for method in ("sendMessage", "editMessageText") * 3
    ]
    await asyncio.sleep(0)
    await request(limiter, telegram, "sendMessage", chat_id=5)
    for _ in range(5):  # callback answers have no chat and no limit
        await request(limiter, telegram, "answerCallbackQuery", callback_query_id="1")
    await asyncio.gather(*group)
    order = [name for name, _ in telegram.calls]
    assert order.index("answerCallbackQuery") < len(order) - 1  # not behind the group
    # Three at once, then one every third of a second, sends and edits alike.
    assert telegram.calls[-1][1] - start >= 3 / 3 - 0.01


async def test_a_429_holds_back_and_slows_only_its_chat_then_the_request_is_retried():
    pacer = Pacer(PACE)
    limiter = ChatRateLimiter(pacer, BroadcastBudget(None))
    telegram = FakeTelegram()
    telegram.floods.append(1)
    start = time.monotonic()
    assert await request(limiter, telegram, "sendMessage", chat_id=5)
    assert time.monotonic() - start >= 1  # sent again once the flood wait was over
    assert pacer.pace_factor(5) == 0.5 and pacer.pace_factor(6) == 1
    assert [name for name, _ in telegram.calls] == ["sendMessage", "sendMessage"]


async def test_a_queued_jobs_429_goes_back_to_its_queue_instead_of_a_stale_retry():
    pacer = Pacer(PACE)
    limiter = ChatRateLimiter(pacer, BroadcastBudget(None))
    telegram = FakeTelegram()
    telegram.floods.append(30)
    outcome: list[BaseException] = []

    async def job() -> None:
        try:
            await request(limiter, telegram, "editMessageText", chat_id=5)
        except RetryAfter as error:
            outcome.append(error)
            raise

    pacer.post(5, job)
    await asyncio.sleep(0.1)
    assert len(outcome) == 1 and len(telegram.calls) == 1  # not retried by the limiter
    assert pacer.held_back(5) > 29
    await pacer.drain(timeout=0.1)


async def test_a_429_on_a_request_without_a_chat_is_honoured_and_retried_a_few_times():
    limiter = ChatRateLimiter(Pacer(PACE), BroadcastBudget(None), max_retries=1)
    telegram = FakeTelegram()
    telegram.floods.extend([1, 1])
    with pytest.raises(RetryAfter):
        await request(limiter, telegram, "answerCallbackQuery", callback_query_id="1")
    assert len(telegram.calls) == 2
    assert telegram.calls[1][1] - telegram.calls[0][1] >= 1


async def test_a_flood_wait_on_setting_the_menus_holds_back_neither_the_poll_nor_the_answers():
    limiter = ChatRateLimiter(Pacer(PACE), BroadcastBudget(None))
    telegram = FakeTelegram()
    telegram.floods.append(120)
    with pytest.raises(RetryAfter):
        await request(limiter, telegram, "setMyCommands")
    await asyncio.wait_for(request(limiter, telegram, "getUpdates"), timeout=5)
    await asyncio.wait_for(
        request(limiter, telegram, "answerCallbackQuery", callback_query_id="1"), timeout=5
    )
    with pytest.raises(TimeoutError):  # setMyCommands itself waits its 120 s
        await asyncio.wait_for(request(limiter, telegram, "setMyCommands"), timeout=0.2)


async def test_a_long_flood_wait_without_a_chat_is_the_callers_to_wait_out():
    limiter = ChatRateLimiter(Pacer(PACE), BroadcastBudget(None), max_retries=3)
    telegram = FakeTelegram()
    telegram.floods.append(120)
    with pytest.raises(RetryAfter):
        await asyncio.wait_for(request(limiter, telegram, "setMyCommands"), timeout=5)
    assert len(telegram.calls) == 1


async def test_broadcasts_whose_reads_end_together_still_go_out_at_the_broadcast_pace():
    """A broadcast reads the database between its slot and its request (the standings it
    shows). Reads held up together (a starved process, a stalled database) end together:
    had each broadcast's pace been spent with its slot, they would all reach Telegram at
    once, past its bot-wide burst. Each request waits for its wire slot instead."""
    budget = BroadcastBudget(None)
    limiter = ChatRateLimiter(Pacer(PACE), budget)
    telegram = FakeTelegram()
    database = asyncio.Event()
    count = 15

    async def broadcast(chat_id: int) -> None:
        await asyncio.sleep(await budget.reserve())
        with broadcasting():
            await database.wait()
            await request(limiter, telegram, "sendMessage", chat_id=chat_id)

    sent = [asyncio.create_task(broadcast(-100 - n)) for n in range(count)]
    await asyncio.sleep((count - BROADCAST_BURST) / BROADCASTS_PER_SECOND + 0.2)  # slots passed
    database.set()
    await asyncio.gather(*sent)
    times = sorted(at for _, at in telegram.calls)
    # A burst at once, then one a slot apart: the last no sooner than that many slots on.
    assert times[-1] - times[0] >= (count - BROADCAST_BURST) / BROADCASTS_PER_SECOND - 0.01
