"""Other players' taps while six players wait for long hint searches.

The searches run in worker processes, so the bot's event loop keeps answering taps. This
prints tap latency alone and during the searches, and the longest event-loop stall seen
meanwhile (run on the loop instead, each search would stall every chat for up to 400 ms).

    .venv/bin/python -m benchmarks.hint_load [--taps 60]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from pathlib import Path

from bot.emulator import FakeBotApi
from tests.support.harness import RunningBot
from tests.support.hint_load import taps_during_hints


async def main(taps: int) -> None:
    async with FakeBotApi() as api:
        with tempfile.TemporaryDirectory() as folder:
            bot = RunningBot(
                api, Path(folder) / "hints.sqlite3", hint_budget_ms=400, hint_workers_at_start=True
            )
            await bot.start()
            try:
                figures = await taps_during_hints(api, bot.database, taps)
            finally:
                await bot.stop()
    ms = 1000
    print(f"hints given: {figures.hints_given} of {figures.hints_asked}")
    print(
        f"tap latency alone: median {statistics.median(figures.quiet) * ms:.1f} ms, "
        f"max {max(figures.quiet) * ms:.1f} ms"
    )
    print(
        f"tap latency during hints: median {statistics.median(figures.busy) * ms:.1f} ms, "
        f"max {max(figures.busy) * ms:.1f} ms"
    )
    print(f"longest event-loop stall during hints: {figures.worst_stall * ms:.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--taps", type=int, default=60)
    asyncio.run(main(parser.parse_args().taps))
