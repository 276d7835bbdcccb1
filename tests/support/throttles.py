"""One player flooding the bot, in the chat and in the Mini App, as a script would: what the
taps', messages' and inline queries' budgets let through
(tests/processes/test_multiprocess_limits.py, and benchmarks/throttles_processes.py, which
times it)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable

import aiohttp

from bot.config import MINIAPP_PATH, TELEGRAM_PACE
from bot.emulator import FakeBotApi
from tests.support.miniapp import authorization, init_data

# Chats a flooding player taps in at once (their private chat and groups): a chat's taps
# arrive one at a time, each once the previous one was answered, and chats side by side.
FLOOD_CHATS = 4
# Taps waiting to be delivered in each chat, at most.
WAITING = 5


def tap_targets(api: FakeBotApi, user_id: int, group: int) -> list[tuple[int, int]]:
    """A message to tap in each of the player's chats: `FLOOD_CHATS - 1` groups from
    `group` down, and their private chat. Their own messages: a script forges its buttons."""
    chats = [user_id, *range(group, group - FLOOD_CHATS + 1, -1)]
    for chat in chats[1:]:
        api.add_group(chat, f"Flooded {-chat}", admins={user_id})
    return [(chat, api.send_text(user_id, chat, "tap")["message_id"]) for chat in chats]


def _until(count: int | None, seconds: float | None) -> Callable[[], bool]:
    """Whether to send one more: `count` in all, or else for `seconds`."""
    if count is not None:
        sent = itertools.count(1)
        return lambda: next(sent) <= count
    deadline = time.monotonic() + (seconds or 0.0)
    return lambda: time.monotonic() < deadline


async def flood_taps(
    api: FakeBotApi,
    user_id: int,
    targets: list[tuple[int, int]],
    *,
    count: int | None = None,
    seconds: float | None = None,
) -> tuple[int, int]:
    """Retired-button taps (they move nothing, so only the taps' budget refuses them) in every
    chat of `targets` at once, `count` of them or for `seconds`: (let through, sent)."""
    more = _until(count, seconds)
    answers: list[dict] = []

    async def chat(chat_id: int, message_id: int) -> None:
        waiting: list[str] = []
        while more():
            waiting.append(api.tap(user_id, chat_id, message_id, "gone", strict=False))
            if len(waiting) >= WAITING:
                answers.append(await api.wait_answer(waiting.pop(0), timeout=120))
        answers.extend([await api.wait_answer(query, timeout=120) for query in waiting])

    await asyncio.gather(*(chat(*target) for target in targets))
    refused = sum(answer.get("text", "").startswith("Whoa, too fast") for answer in answers)
    return len(answers) - refused, len(answers)


async def flood_page(
    api: FakeBotApi,
    user_id: int,
    bases: list[str],
    connections: int,
    *,
    count: int | None = None,
    seconds: float | None = None,
) -> tuple[int, int]:
    """The Mini App's `open` over `connections`, each call to the next of `bases` (the bot's
    web servers), `count` of them or for `seconds`: (let through, sent)."""
    more = _until(count, seconds)
    headers = authorization(init_data(api.token, user_id))
    urls = itertools.cycle(f"{base}{MINIAPP_PATH}/api/open" for base in bases)
    statuses: list[int] = []

    async def caller(session: aiohttp.ClientSession) -> None:
        while more():
            async with session.post(next(urls), json={}, headers=headers) as response:
                statuses.append(response.status)

    async with aiohttp.ClientSession() as session:
        await asyncio.gather(*(caller(session) for _ in range(connections)))
    assert set(statuses) <= {200, 429}, f"answered {sorted(set(statuses))}"
    return statuses.count(200), len(statuses)


async def _handled(api: FakeBotApi, timeout: float = 120.0) -> None:
    """Until every update sent was delivered and answered (a webhook's answer waits for the
    update's handling)."""
    deadline = time.monotonic() + timeout
    while api.pending_updates:
        assert time.monotonic() < deadline, f"{len(api.pending_updates)} updates undelivered"
        await asyncio.sleep(0.05)


async def flood_commands(
    api: FakeBotApi, user_id: int, count: int, command: str = "/help"
) -> tuple[int, int]:
    """`count` of `command` in the player's private chat at once (delivered one at a time,
    in order): (answered, sent). An over-budget message is dropped unanswered."""
    mark = api.mark()
    for _ in range(count):
        api.send_text(user_id, user_id, command)
    await _handled(api)
    # Past the chat's burst the replies come one a pace interval apart: quiet for less than
    # three of them would count a reply still on its way as never sent.
    await _settled(
        lambda: len(api.find_requests("sendMessage", after=mark, chat_id=user_id)),
        quiet=3 / TELEGRAM_PACE.per_second(user_id),
    )
    return len(api.find_requests("sendMessage", after=mark, chat_id=user_id)), count


async def flood_inline(api: FakeBotApi, user_id: int, count: int) -> tuple[int, int]:
    """`count` inline queries typed at once, each another text: (answered, sent). An
    over-budget query is left unanswered."""
    queries = [api.inline_query(user_id, user_id, f"flood {n}") for n in range(count)]
    await _handled(api)

    def answered() -> int:
        return sum(api.world.inline_queries[query].answer is not None for query in queries)

    await _settled(answered)
    return answered(), count


async def _settled(count: Callable[[], int], quiet: float = 1.0, timeout: float = 60.0) -> None:
    """Until `count` stays the same for `quiet` seconds: replies still on their way are in."""
    deadline = time.monotonic() + timeout
    last, since = count(), time.monotonic()
    while time.monotonic() - since < quiet and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        if (now := count()) != last:
            last, since = now, time.monotonic()
