"""How fast the daily's rankings are read with 100,000 players in one day.

Run from the repository root:

    .venv/bin/python -m benchmarks.daily                       # SQLite
    .venv/bin/python -m benchmarks.daily --database-url postgresql://postgres@127.0.0.1:54329/x

Two days' dailies, 100,000 attempts each with random scores and moves (and 500 of today's
players in one group), written straight into a fresh database (a temporary SQLite file, or a
new schema on the PostgreSQL server), analysed and vacuumed. Then, for players picked at
random, what `/daily top` reads (the top 10, the player's rank and how many are ranked) and
what `/daily` in the group reads (its standings), each timed from the query to its rows.
Targets: top 10 plus rank at most 50 ms p95, a group's standings at most 20 ms p95.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg

from benchmarks.load import _fresh_schema
from bot.models import Daily
from bot.storage import Storage, open_storage

PLAYERS = 100_000
GROUP = -100_555
GROUP_MEMBERS = 500
SAMPLES = 200
TOP_TARGET_MS = 50.0
GROUP_TARGET_MS = 20.0


@contextlib.asynccontextmanager
async def _database(url: str | None) -> AsyncIterator[tuple[Storage, str | None]]:
    """The storage, and the URL of its PostgreSQL schema (None for SQLite)."""
    if url is None:
        with tempfile.TemporaryDirectory() as folder:
            store = await open_storage(Path(folder) / "daily.sqlite3")
            try:
                yield store, None
            finally:
                await store.close()
        return
    async with _fresh_schema(url) as schema_url:
        store = await open_storage(schema_url)
        try:
            yield store, schema_url
        finally:
            await store.close()


async def _settle(store: Storage, schema_url: str | None) -> None:
    """The planner's statistics and PostgreSQL's visibility map, as autovacuum leaves them
    after a day of inserts (its insert threshold): counts read the index alone."""
    if schema_url is None:
        async with store.transaction():
            await store._execute("ANALYZE")
        return
    connection = await asyncpg.connect(schema_url)
    try:
        await connection.execute("VACUUM ANALYZE games")
    finally:
        await connection.close()


async def _fill(store: Storage, players: int, seed: int) -> Daily:
    """Yesterday's daily and today's, each with its attempts, inserted in batches (a day's
    rows are never the whole table); 500 of today's players in the group. Today's is
    returned."""
    rng = random.Random(seed)
    async with store.transaction():
        yesterday = await store.ensure_daily(
            Daily(0, "2026-12-01", 4, 6, "cd" * 16, "1" * 64, 1_796_169_600.0), 0.0
        )
        daily = await store.ensure_daily(
            Daily(0, "2026-12-02", 4, 7, "ab" * 16, "0" * 64, 1_796_256_000.0), 0.0
        )
    rows = [
        (
            user,
            user,
            '{"v":0}',
            day.id,
            rng.randrange(0, 40_000, 4),
            rng.randrange(1, 2_000),
            day.ends_at - rng.random() * 86_400,
        )
        for day in (yesterday, daily)
        for user in range(1, players + 1)
    ]
    insert = (
        "INSERT INTO games (chat_id, owner_id, size, state, daily_id, score, moves, score_at, "
        "created_at, updated_at) VALUES (?, ?, 4, ?, ?, ?, ?, ?, 0, 0)"
    )
    for start in range(0, len(rows), 5_000):
        async with store.transaction():
            for row in rows[start : start + 5_000]:
                await store._execute(insert, row)
    async with store.transaction():
        for user in rng.sample(range(1, players + 1), GROUP_MEMBERS):
            await store._execute(
                "INSERT INTO games (chat_id, owner_id, size, state, created_at, updated_at, "
                "active) VALUES (?, ?, 4, '{\"v\":0}', 0, 0, 0)",
                (GROUP, user),
            )
    return daily


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1]


async def _measure(store: Storage, daily: Daily, players: int, seed: int) -> dict[str, float]:
    """p95 of each read, in wall-clock and in this process's CPU milliseconds (on a busy
    machine the wall clock mostly measures the wait for a core; SQLite's work is all CPU of
    this process, PostgreSQL's mostly the server's)."""
    rng = random.Random(seed + 1)
    samples: dict[str, list[float]] = {"top": [], "top cpu": [], "group": [], "group cpu": []}
    for _ in range(SAMPLES):
        user = rng.randrange(1, players + 1)
        wall, cpu = time.perf_counter(), time.process_time()
        await store.daily_top(daily.id, 10)
        await store.daily_rank(daily.id, user)
        samples["top"].append((time.perf_counter() - wall) * 1000)
        samples["top cpu"].append((time.process_time() - cpu) * 1000)
        wall, cpu = time.perf_counter(), time.process_time()
        await store.daily_group_standings(daily.id, GROUP)
        samples["group"].append((time.perf_counter() - wall) * 1000)
        samples["group cpu"].append((time.process_time() - cpu) * 1000)
    return {name: _p95(values) for name, values in samples.items()}


async def _run(url: str | None, players: int) -> None:
    backend = "SQLite" if url is None else "PostgreSQL"
    async with _database(url) as (store, schema_url):
        began = time.perf_counter()
        daily = await _fill(store, players, seed=1)
        await _settle(store, schema_url)
        filled = time.perf_counter() - began
        p95 = await _measure(store, daily, players, seed=1)
    print(f"{backend}: {players:,} players (written in {filled:.1f} s), {SAMPLES} samples")
    for name, label, target in (
        ("top", "top 10 + rank  ", TOP_TARGET_MS),
        ("group", "group standings", GROUP_TARGET_MS),
    ):
        print(
            f"  {label} p95 {p95[name]:6.1f} ms wall, {p95[name + ' cpu']:6.1f} ms CPU here "
            f"(target {target:.0f} ms)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="a PostgreSQL server; SQLite without one")
    parser.add_argument("--players", type=int, default=PLAYERS)
    args = parser.parse_args()
    asyncio.run(_run(args.database_url, args.players))


if __name__ == "__main__":
    main()
