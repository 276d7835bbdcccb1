"""How long the /stats picture takes to draw, and how big it is.

Run from the repository root:

    .venv/bin/python -m benchmarks.stats
    .venv/bin/python -m benchmarks.stats --dailies 100 --players 3000   # and the reads, on SQLite

Two figures. The drawing itself, in CPU milliseconds of this process (`time.process_time`:
the chart uses one core, so that is what one worker of the bot's picture pool spends,
whatever else the machine does), for charts of 1 to 30 games in every language; target at
most 40 ms at the 95th percentile. And the wall time of a chart drawn as the bot draws it,
through `WorkerPool.run_alone` (the arguments pickled to a worker and the PNG back), which
the machine's load does change: hence the machine and its load average, printed first.

With `--dailies`, also what /stats reads for one player who played every one of that many
dailies, each with `--players` attempts, on a temporary SQLite file (or, with
`--database-url`, a new schema on that PostgreSQL server), in one run: first with the places
counted live from each daily's ranking, as before the days' places were kept, which grows
with dailies × players; then the day-end work that keeps them (`DailyService.keep_places`,
timed per daily); then read from what was kept, which grows with the player's dailies alone.
The ratio of the two reads is printed; both give the same places, which the run checks.

    .venv/bin/python -m benchmarks.stats --dailies 100 --players 20000 \
        --database-url postgresql://postgres@127.0.0.1:54329/bot2048_test
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

from benchmarks.daily import _database, _settle
from benchmarks.pictures import draw_all, report
from bot.models import Daily
from bot.outcomes import PlayerStats
from bot.presentation import charts
from bot.presentation.i18n import LANGUAGES, translator
from bot.services.daily import DailyService
from bot.services.locks import ChatLocks
from bot.services.stats import StatsService
from bot.services.workers import WorkerPool
from bot.storage import Storage

TARGET_MS = 40.0
TARGET_BYTES = 150_000
POOL_RUNS = 50
READS = 10  # /stats reads timed, before and after the places are kept
FIRST_DAY = date(2026, 1, 1)  # of the dailies --dailies makes


def machine() -> str:
    """The processor's name, its cores and the load average, as the figures depend on them."""
    cpuinfo = Path("/proc/cpuinfo")
    names = [
        line.split(":", 1)[1].strip()
        for line in (cpuinfo.read_text().splitlines() if cpuinfo.exists() else [])
        if line.startswith("model name")
    ]
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    processor = names[0] if names else platform.processor() or platform.machine()
    return f"{processor}, {os.cpu_count()} cores, load average {load} (1, 5, 15 min)"


def _figures() -> list[charts.ChartFigures]:
    """Charts of every length up to 30 games, scores from nothing to a 6×6's millions."""
    rolls = random.Random(2048)
    figures = []
    for games in range(1, 31):
        scores = tuple(
            (rolls.randrange(0, 10 ** rolls.randint(2, 7)), 2 ** rolls.randint(1, 17))
            for _ in range(games)
        )
        figures.append(charts.ChartFigures("Daan de Vries", scores, games * 37, 9_876_543))
    return figures


def bench_drawing() -> bool:
    times, sizes = draw_all(charts.chart_png, _figures())
    print(f"charts: {len(times)} (1 to 30 games in {', '.join(LANGUAGES)})")
    return report("drawing", times, sizes, TARGET_MS, TARGET_BYTES)


async def bench_pool() -> None:
    """Wall time of a 30-game chart through the picture pool, one at a time, as /stats does."""
    pool = WorkerPool(workers=1)
    t, figures = translator("en"), _figures()[-1]
    try:
        await pool.run_alone(1, charts.chart_png, t, figures)  # the worker starts, fonts load
        times = []
        for run in range(POOL_RUNS):
            start = time.perf_counter()
            await pool.run_alone(run, charts.chart_png, t, figures)
            times.append((time.perf_counter() - start) * 1000)
    finally:
        pool.close()
    times.sort()
    print(
        f"  through the picture pool, wall time: median {statistics.median(times):.1f} ms, "
        f"p95 {times[int(len(times) * 0.95)]:.1f} ms of {POOL_RUNS}"
    )


async def _fill(store: Storage, dailies: int, players: int) -> None:
    """`dailies` days' 4×4 dailies, all over, each with `players` attempts of random scores
    and moves (ties on score included); player 1 is among them every day."""
    rolls = random.Random(30)
    async with store.transaction():
        days = [
            await store.ensure_daily(
                Daily(
                    0,
                    (FIRST_DAY + timedelta(days=index)).isoformat(),
                    4,
                    index,
                    "ab" * 16,
                    "0" * 64,
                    0.0,
                ),
                0.0,
            )
            for index in range(dailies)
        ]
    insert = (
        "INSERT INTO games (chat_id, owner_id, size, state, daily_id, score, moves, score_at, "
        """created_at, updated_at) VALUES (?, ?, 4, '{"pt":30}', ?, ?, ?, ?, 0, 0)"""
    )
    rows = [
        (user, user, day.id, rolls.randrange(0, 40_000, 4), rolls.randrange(1, 2_000), 0.0)
        for day in days
        for user in range(1, players + 1)
    ]
    for start in range(0, len(rows), 5_000):
        async with store.transaction():
            for row in rows[start : start + 5_000]:
                await store._execute(insert, row)


async def _time_reads(stats: StatsService) -> tuple[list[float], list[float], PlayerStats | None]:
    """`READS` reads of player 1's /stats: wall and CPU milliseconds, and what was read."""
    walls, cpus, figures = [], [], None
    for _ in range(READS):
        wall, cpu = time.perf_counter(), time.process_time()
        figures = await stats.of(1)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return walls, cpus, figures


async def bench_reads(dailies: int, players: int, url: str | None) -> None:
    backend = "SQLite" if url is None else "PostgreSQL"
    async with _database(url) as (store, schema_url):
        began = time.perf_counter()
        await _fill(store, dailies, players)
        await _settle(store, schema_url)
        print(
            f"reads, {backend}, {dailies:,} dailies of {players:,} players "
            f"(written in {time.perf_counter() - began:.0f} s), median of {READS}:"
        )
        stats = StatsService(store)
        live_walls, live_cpus, live = await _time_reads(stats)
        began = time.perf_counter()
        kept = await DailyService(store, ChatLocks(store)).keep_places()
        keeping = time.perf_counter() - began
        await _settle(store, schema_url)  # the kept rows analysed, as autovacuum would
        kept_walls, kept_cpus, stored = await _time_reads(stats)
    assert kept == dailies * players and stored == live, "the kept places differ"
    live_ms, kept_ms = statistics.median(live_walls), statistics.median(kept_walls)
    print(
        f"  live (each place counted):  {live_ms:8.1f} ms wall, "
        f"{statistics.median(live_cpus):6.1f} ms CPU here"
    )
    print(
        f"  kept (each place read):     {kept_ms:8.1f} ms wall, "
        f"{statistics.median(kept_cpus):6.1f} ms CPU here: {live_ms / kept_ms:,.0f}× faster"
    )
    print(
        f"  keeping the places: {keeping:.1f} s for {kept:,} places, "
        f"{keeping / dailies * 1000:.0f} ms a daily of {players:,}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dailies", type=int, help="also time the reads of /stats")
    parser.add_argument("--players", type=int, default=3_000)
    parser.add_argument("--database-url", help="the reads on PostgreSQL; SQLite without one")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    ok = bench_drawing()
    asyncio.run(bench_pool())
    if args.dailies:
        asyncio.run(bench_reads(args.dailies, args.players, args.database_url))
    print("all targets met" if ok else "a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
