"""Limits that hold across bot processes sharing one PostgreSQL database, with real processes.

One process takes a bot's updates by polling, or any number by webhook, never both; a group
never has more than three running challenges however many processes create them at once; a
player's picture is drawn by one process at a time; a player's taps, in the chat and in the
Mini App, their messages and their inline queries are one budget each however many
processes serve them.
"""

from __future__ import annotations

import asyncio
import time

import asyncpg

from bot.models import NewChallenge
from bot.storage import open_storage
from bot.storage.postgres import describe_url
from bot.wiring import (
    INLINE_QUERIES_PER_SECOND,
    INLINE_QUERY_BURST,
    MESSAGE_BURST,
    MESSAGES_PER_SECOND,
    TAP_BURST,
    TAPS_PER_SECOND,
)
from tests.support.databases import count_rows
from tests.support.harness import User
from tests.support.miniapp import WEBAPP_URL
from tests.support.processes import (
    PUBLIC_URL,
    SECRET,
    WebhookProcess,
    bot_env,
    free_port,
    refused_at_start,
    second_poller_refused,
    spawn_bot,
    start_all,
    start_bot_process,
    stop_cleanly,
)
from tests.support.throttles import (
    flood_commands,
    flood_inline,
    flood_page,
    flood_taps,
    tap_targets,
)

GROUP = -100888


async def refused_start(api, database: str, *args: str, **settings: str) -> str:
    """Start `python -m bot`: it must exit 1 at once with one line and no traceback."""
    process = await spawn_bot(
        *args, env=bot_env(api, database, **settings), stderr=asyncio.subprocess.PIPE
    )
    return (await refused_at_start(process))[1]


def webhook_settings() -> dict[str, str]:
    return {
        "WEBHOOK_URL": PUBLIC_URL,
        "WEBHOOK_SECRET": SECRET,
        "LISTEN": "127.0.0.1",
        "PORT": str(free_port()),
    }


async def test_a_second_poller_and_a_webhook_beside_a_poller_are_refused(api, postgres):
    polls = api.polls
    first = await start_bot_process(api, postgres)
    try:
        await api.wait_polling(after=polls, timeout=30)  # started, and polling
        line = await refused_start(api, postgres)
        assert line == second_poller_refused(postgres)
        line = await refused_start(api, postgres, "--webhook", **webhook_settings())
        assert line == (
            f"bot2048: a polling process of this bot is running on {describe_url(postgres)}: "
            "stop it before starting webhook processes\n"
        )
        anna = User(api, 1201, "Anna")
        assert (await anna.send("/best"))[0]  # the first process still serves
    finally:
        await stop_cleanly(first)
    polls = api.polls
    second = await start_bot_process(api, postgres)  # the lock went with the first process
    await api.wait_polling(after=polls, timeout=30)
    await stop_cleanly(second)


async def test_a_poller_beside_webhook_processes_is_refused(api, postgres):
    webhooks = [WebhookProcess(api, postgres), WebhookProcess(api, postgres)]
    await start_all(webhooks)  # webhook processes share the bot
    try:
        line = await refused_start(api, postgres)
        assert line == second_poller_refused(postgres)
    finally:
        assert await asyncio.gather(*(p.stop() for p in webhooks)) == [0, 0]


async def waiting_for_lock(database: str, name: str) -> bool:
    """Whether a session waits for the transaction lock `name` (Storage.hold_chat's)."""
    connection = await asyncpg.connect(database)
    try:
        return await connection.fetchval(
            "SELECT count(*) > 0 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
            "AND (classid::bigint << 32 | objid::bigint) = hashtextextended($1, 0)",
            f"bot2048:{name}",
        )
    finally:
        await connection.close()


async def test_a_challenge_created_while_another_process_adds_the_third_is_refused(api, postgres):
    """The count and the insert of another process's /challenge happen in between this
    process's count and its insert: the group's lock makes this one count after it."""
    anna = User(api, 1351, "Anna")
    api.add_group(GROUP, "Crowded", admins={anna.id})
    process = WebhookProcess(api, postgres)
    await process.start()
    elsewhere = await open_storage(postgres)  # another process, creating the third challenge
    try:
        api.webhook_targets = [process.url]
        for _ in range(2):
            api.send_text(anna.id, GROUP, "/challenge 10m")
            await api.wait_request("sendMessage", chat_id=GROUP, timeout=30)
        now = time.time()
        async with elsewhere.transaction():
            await elsewhere.hold_chat(GROUP)
            await elsewhere.insert_challenge(
                NewChallenge(GROUP, "Crowded", "en", anna.id, 4, 7, "abcdefgh", now + 600), now
            )
            mark = api.mark()
            api.send_text(anna.id, GROUP, "/challenge 10m")
            answered = lambda: api.find_requests("sendMessage", after=mark, chat_id=GROUP)  # noqa: E731
            while not answered() and not await waiting_for_lock(postgres, f"chat:{GROUP}"):
                await asyncio.sleep(0.05)
        reply = await api.wait_request("sendMessage", after=mark, chat_id=GROUP, timeout=30)
        assert "already has 3 challenges" in reply.params["text"]
        assert await count_rows(postgres, "challenges", "chat_id = ? AND finished = 0", GROUP) == 3
    finally:
        await elsewhere.close()
        assert await process.stop() == 0


async def test_a_picture_drawn_by_another_process_holds_the_next_one_back(api, postgres):
    process = WebhookProcess(api, postgres)
    await process.start()
    try:
        api.webhook_targets = [process.url]
        anna = User(api, 1401, "Anna")
        board = await anna.open_board()
        await anna.tap(board, "⬅️", edit=False)
        await anna.tap(board, "⬆️", edit=False)
        elsewhere = await open_storage(postgres)  # another process, drawing Anna's card
        try:
            async with elsewhere.exclusive(f"job:{anna.id}") as claimed:
                assert claimed
                (answer,) = await anna.send("/share")
                assert "still making your last picture" in answer
            mark = api.mark()
            api.send_text(anna.id, anna.id, "/share")
            await api.wait_request("sendPhoto", after=mark, chat_id=anna.id, timeout=30)
        finally:
            await elsewhere.close()
    finally:
        assert await process.stop() == 0


# A flood well over what the budget lets through while it lasts, and the page's connections.
FLOOD_TAPS = 400
FLOOD_CALLS = 300
PAGE_CONNECTIONS = 30
# Taps counted once too often, at most: each process rounds the bucket's refill its own way.
SLACK = 2


def within_budget(
    let_through: int, seconds: float, rate: float = TAPS_PER_SECOND, burst: float = TAP_BURST
) -> bool:
    """As many as one process lets through in `seconds`, at most: the burst, and the refill."""
    return burst <= let_through <= burst + rate * seconds + SLACK


async def test_one_players_taps_and_page_calls_are_one_budget_across_three_processes(api, postgres):
    """Anna floods forged buttons in four chats, and Daan his page, each update and call going
    to the next of three processes: each gets what one process alone lets through, not three
    times that."""
    trio = [WebhookProcess(api, postgres, WEBAPP_URL=WEBAPP_URL) for _ in range(3)]
    await start_all(trio)
    try:
        api.webhook_targets = [p.url for p in trio]
        anna, daan = User(api, 1501, "Anna"), User(api, 1502, "Daan")
        await daan.send("/start")
        targets = tap_targets(api, anna.id, GROUP)

        async def timed(flood) -> tuple[int, float]:
            started = time.monotonic()
            let_through, _ = await flood
            return let_through, time.monotonic() - started

        bases = [p.web_base for p in trio]
        (taps, tapping), (calls, calling) = await asyncio.gather(
            timed(flood_taps(api, anna.id, targets, count=FLOOD_TAPS)),
            timed(flood_page(api, daan.id, bases, PAGE_CONNECTIONS, count=FLOOD_CALLS)),
        )
        assert within_budget(taps, tapping), (taps, tapping)
        assert within_budget(calls, calling), (calls, calling)
    finally:
        assert await asyncio.gather(*(p.stop() for p in trio)) == [0, 0, 0]


FLOOD_MESSAGES = 60


async def test_one_players_commands_and_inline_queries_are_one_budget_across_three_processes(
    api, postgres
):
    """Anna sends /help, and Daan types inline queries, far faster than their budgets, each
    update going to the next of three processes: each gets what one process alone lets
    through, not three times that."""
    api.world.inline_mode = True  # switched on at @BotFather
    trio = [WebhookProcess(api, postgres) for _ in range(3)]
    await start_all(trio)
    try:
        api.webhook_targets = [p.url for p in trio]
        anna, daan = User(api, 1511, "Anna"), User(api, 1512, "Daan")

        async def timed(flood) -> tuple[int, float]:
            started = time.monotonic()
            let_through, _ = await flood
            return let_through, time.monotonic() - started

        (commands, commanding), (queries, querying) = await asyncio.gather(
            timed(flood_commands(api, anna.id, FLOOD_MESSAGES)),
            timed(flood_inline(api, daan.id, FLOOD_MESSAGES)),
        )
        assert within_budget(commands, commanding, MESSAGES_PER_SECOND, MESSAGE_BURST), (
            commands,
            commanding,
        )
        assert within_budget(queries, querying, INLINE_QUERIES_PER_SECOND, INLINE_QUERY_BURST), (
            queries,
            querying,
        )
    finally:
        assert await asyncio.gather(*(p.stop() for p in trio)) == [0, 0, 0]
