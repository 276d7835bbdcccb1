"""A tap against PostgreSQL further away: answered and redrawn, and what it writes.

The bot runs in this process on a PostgreSQL schema of its own, reached through a TCP proxy
on 127.0.0.1 that adds half of `--delays` each way (a database in another zone), against
the Bot API emulator with Telegram's flood limits. `--chats` players tap arrows in turn,
each tap after the previous one is answered and drawn, so a chat taps at a human pace.
Printed for each delay, on the same run:

    answered      tap sent -> its answer arrives at the emulator (p50, p90)
    drawn         tap sent -> the first edit showing it (p50)
    round trips   client sends after an answer, through the proxy, per tap: the tap's own
                  and a share of the jobs that run meanwhile (catch-up every 2 s)
    rows          rows inserted, updated or deleted per 1,000 taps, from the schema's tables
    WAL           bytes of write-ahead log per 1,000 taps, and how often it was flushed to
                  disk (each commit that waits for the disk flushes it): the server's whole,
                  so run it on a server of its own (`.ci/postgres start DIR PORT --durable`)

    .venv/bin/python -m benchmarks.tap_database --database-url URL [--taps 60] [--delays 0,0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import urllib.parse
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncpg

from benchmarks.load import open_boards
from benchmarks.pace import MOVES, moves_shown
from benchmarks.tap import bench_config
from bot.emulator import TELEGRAM_LIMITS, FakeBotApi
from bot.lifecycle import opened, serving
from tests.support.proxy import TcpProxy, through_proxy


@dataclass(frozen=True)
class Figures:
    delay: float
    answered: list[float]
    drawn: list[float]
    round_trips: float
    rows: dict[str, float]  # per 1,000 taps, by table
    wal_bytes: float  # per 1,000 taps
    wal_flushes: float  # per 1,000 taps

    def lines(self) -> list[str]:
        def ms(values: list[float], q: float) -> str:
            ordered = sorted(values)
            return f"{ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000:.0f}"

        rows = ", ".join(f"{table} {count:,.0f}" for table, count in sorted(self.rows.items()))
        return [
            f"round trip +{self.delay * 1000:.0f} ms: answered p50 {ms(self.answered, 0.5)} ms, "
            f"p90 {ms(self.answered, 0.9)} ms; drawn p50 {ms(self.drawn, 0.5)} ms; "
            f"{self.round_trips:.1f} round trips a tap",
            f"  per 1,000 taps: {sum(self.rows.values()):,.0f} rows ({rows}), "
            f"{self.wal_bytes / 1e6:.2f} MB of WAL, flushed to disk {self.wal_flushes:,.0f} times",
        ]


@asynccontextmanager
async def _schema(server: str) -> AsyncIterator[tuple[str, str]]:
    """A new schema on `server`, dropped afterwards: its name and its URL."""
    name = f"bench_{uuid.uuid4().hex[:12]}"
    connection = await asyncpg.connect(server)
    try:
        await connection.execute(f"CREATE SCHEMA {name}")
        yield name, f"{server}{'&' if '?' in server else '?'}search_path={name}"
    finally:
        await connection.execute(f"DROP SCHEMA {name} CASCADE")
        await connection.close()


async def _written(server: str, schema: str) -> tuple[dict[str, int], int, int]:
    """Rows changed so far in each of the schema's tables, the server's WAL bytes and its
    WAL flushes to disk."""
    connection = await asyncpg.connect(server)
    try:
        rows = await connection.fetch(
            "SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables "
            "WHERE schemaname = $1",
            schema,
        )
        wal, flushes = await connection.fetchrow("SELECT wal_bytes, wal_sync FROM pg_stat_wal")
    finally:
        await connection.close()
    return {name: count for name, count in rows}, int(wal), int(flushes)


async def measure(server: str, delay: float, taps: int, chats: int, folder: Path) -> Figures:
    parts = urllib.parse.urlsplit(server)
    proxy = TcpProxy(parts.hostname or "127.0.0.1", parts.port or 5432, delay=delay / 2)
    port = await proxy.start()
    try:
        async with (
            _schema(server) as (schema, direct),
            FakeBotApi(flood=TELEGRAM_LIMITS) as api,
        ):
            config = bench_config(api, str(folder), database_url=through_proxy(direct, port))
            async with opened(config) as process, serving(process, poll_timeout=1):
                boards = await open_boards(api, range(1, chats + 1))
                # The last /start's redraws and claims done, and every connection's counts
                # of rows and WAL in the statistics (each flushes them once a second at most).
                await asyncio.sleep(3)
                before, wal_before, flushes_before = await _written(server, schema)
                trips_before = proxy.round_trips
                answered, drawn = [], []
                for i in range(taps):
                    chat = 1 + i % chats
                    message_id, prefix = boards[chat]
                    board = api.last_bot_message(chat)
                    found = MOVES.search(board["text"]) if board else None
                    shown = int(found.group(1).replace(",", "")) if found else 0
                    mark = api.mark()
                    sent_at = time.time()  # the emulator logs time.time()
                    query = api.tap(chat, chat, message_id, f"{prefix}:{'lurd'[(i // chats) % 4]}")
                    answer = await api.wait_answer(query)
                    (given,) = api.find_requests(
                        "answerCallbackQuery", after=mark, callback_query_id=query
                    )
                    answered.append(given.time - sent_at)
                    if answer.get("text"):
                        continue  # that direction moved nothing: no edit to wait for
                    while True:
                        edit = await api.wait_request("editMessageText", after=mark, chat_id=chat)
                        if moves_shown(edit) > shown:
                            break
                        mark = api.requests.index(edit) + 1
                    drawn.append(edit.time - sent_at)
                await asyncio.sleep(1)  # the last redraw's check after its edit
                trips = proxy.round_trips - trips_before
            await asyncio.sleep(1)  # the bot's connections closed, their counts flushed
            after, wal_after, flushes_after = await _written(server, schema)
    finally:
        await proxy.stop()
    per_thousand = 1000 / taps
    rows = {
        table: (after.get(table, 0) - before.get(table, 0)) * per_thousand
        for table in after
        if after.get(table, 0) != before.get(table, 0)
    }
    return Figures(
        delay,
        answered,
        drawn,
        trips / taps,
        rows,
        (wal_after - wal_before) * per_thousand,
        (flushes_after - flushes_before) * per_thousand,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL") or os.environ.get("TEST_DATABASE_URL"),
    )
    parser.add_argument("--taps", type=int, default=60)
    parser.add_argument("--chats", type=int, default=4)
    parser.add_argument("--delays", default="0,0.2", help="round trips added, in seconds")
    args = parser.parse_args()
    if not args.database_url:
        raise SystemExit("needs --database-url (or DATABASE_URL)")
    with tempfile.TemporaryDirectory() as folder:
        for delay in (float(d) for d in args.delays.split(",")):
            figures = asyncio.run(
                measure(args.database_url, delay, args.taps, args.chats, Path(folder))
            )
            print("\n".join(figures.lines()))


if __name__ == "__main__":
    main()
