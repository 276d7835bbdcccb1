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
dailies, each with `--players` attempts, on a temporary SQLite file: each daily's place is
counted from the ranking's index, so the time grows with dailies × players.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from benchmarks.pictures import draw_all, report
from bot.models import Daily
from bot.presentation import charts
from bot.presentation.i18n import LANGUAGES, translator
from bot.services.stats import StatsService
from bot.services.workers import WorkerPool
from bot.storage import Storage, open_storage

TARGET_MS = 40.0
TARGET_BYTES = 150_000
POOL_RUNS = 50
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
    """`dailies` days' 4×4 dailies, each with `players` attempts of random scores and moves;
    player 1 is among them every day."""
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
    async with store.transaction():
        await store._execute("ANALYZE")


async def bench_reads(dailies: int, players: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = await open_storage(Path(folder) / "stats.sqlite3")
        try:
            await _fill(store, dailies, players)
            stats = StatsService(store)
            walls, cpus = [], []
            for _ in range(10):
                wall, cpu = time.perf_counter(), time.process_time()
                await stats.of(1)
                walls.append((time.perf_counter() - wall) * 1000)
                cpus.append((time.process_time() - cpu) * 1000)
        finally:
            await store.close()
    print(
        f"reads, SQLite, {dailies:,} dailies of {players:,} players: median "
        f"{statistics.median(walls):.0f} ms wall, {statistics.median(cpus):.0f} ms CPU of 10"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dailies", type=int, help="also time the reads of /stats")
    parser.add_argument("--players", type=int, default=3_000)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    ok = bench_drawing()
    asyncio.run(bench_pool())
    if args.dailies:
        asyncio.run(bench_reads(args.dailies, args.players))
    print("all targets met" if ok else "a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
