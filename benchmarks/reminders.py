"""Midnight's reminders: thousands of players who asked for the daily's reminder, at once.

In-process bots (tests/support/harness.py) against the Bot API emulator with Telegram's
per-chat flood limits on; `--players` players asked for the reminder before a midnight the
bot has not looked at yet, so the first look owes them all. Printed for each run:

    sent        reminders sent, and players reminded twice (target: every player once)
    seconds     from the first reminder to the last
    per second  reminders per second overall, and the most sent within any one second
                (target: at most Telegram's 30 a second for a bot in all)
    429s        flood waits the bot ran into (target: 0)

    .venv/bin/python -m benchmarks.reminders [--players 2000]
    .venv/bin/python -m benchmarks.reminders --processes 2   # webhook processes on PostgreSQL

`--processes` runs that many bots sharing a fresh schema of TEST_DATABASE_URL's server.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import tempfile
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.config import Webhook
from bot.emulator import FakeBotApi
from bot.storage import open_storage
from tests.support.databases import Database, fresh_postgres_database
from tests.support.harness import RunningBot
from tests.support.processes import PUBLIC_URL, SECRET, free_port

FIRST_USER = 10_000
OPEN = "is open: the same tiles for everyone"


async def _asked(database: Database, players: int) -> None:
    """Every player asked for the reminder the day before yesterday (a bot of this schema
    opened the database first)."""
    day = (datetime.now(UTC).date() - timedelta(days=2)).isoformat()
    store = await open_storage(database)
    try:
        async with store.transaction():
            for user_id in range(FIRST_USER, FIRST_USER + players):
                await store.switch_reminder_on(user_id, day)
    finally:
        await store.close()


async def run(players: int, processes: int) -> None:
    async with FakeBotApi() as api, contextlib.AsyncExitStack() as stack:
        for user_id in range(FIRST_USER, FIRST_USER + players):
            api.add_user(user_id, f"P{user_id}")
            api.world.chat(user_id).started = True  # as if each had sent /start
        if processes == 1:
            folder = stack.enter_context(tempfile.TemporaryDirectory())
            database: Database = Path(folder) / "reminders.sqlite3"
            bots = [RunningBot(api, database)]
        else:
            database = await stack.enter_async_context(fresh_postgres_database())
            webhooks = [
                Webhook(PUBLIC_URL, SECRET, port=free_port(), listen="127.0.0.1")
                for _ in range(processes)
            ]
            bots = [RunningBot(api, database, webhook=webhook) for webhook in webhooks]
        store = await open_storage(database)  # the schema, before the bots look
        await store.close()
        await _asked(database, players)
        mark = api.mark()
        for bot in bots:
            await bot.start()
            stack.push_async_callback(bot.stop)
        sent = []
        while len({r.params["chat_id"] for r in sent}) < players:
            await asyncio.sleep(0.5)
            sent = [
                r for r in api.find_requests("sendMessage", after=mark) if OPEN in r.params["text"]
            ]
        await asyncio.sleep(3)  # a few more looks: would anything go twice?
        requests = api.find_requests(after=mark, ok=None)
        sent = [r for r in requests if r.ok and OPEN in r.params.get("text", "")]
        twice = sum(1 for n in Counter(r.params["chat_id"] for r in sent).values() if n > 1)
        floods = sum(1 for r in requests if r.error_code == 429)
        first, last = sent[0].time, sent[-1].time
        times = [r.time for r in sent]
        busiest = max(bisect.bisect_left(times, t + 1.0) - i for i, t in enumerate(times))
        print(
            f"{processes} process(es), {players} players: sent {len(sent)}, twice {twice}; "
            f"{last - first:.1f} s; {len(sent) / max(last - first, 1e-9):.1f}/s overall, "
            f"{busiest} in the busiest second; 429s {floods}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--processes", type=int, default=1)
    arguments = parser.parse_args()
    asyncio.run(run(arguments.players, arguments.processes))


if __name__ == "__main__":
    main()
