"""A player's taps while a group floods the bot with 300 commands.

The group's replies wait their turn at 20 a minute; a tap in a private chat must not wait for
them. Prints how long the taps waited for their answers (seconds from the tap to the
answerCallbackQuery; target: median within 100 ms, none after one of the group's 3 s turns)
and how many of the group's replies went out meanwhile. tests/e2e/test_pace.py checks the same
scenario's behaviour, without timing it.

    .venv/bin/python -m benchmarks.group_flood [--taps 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from pathlib import Path

from bot.emulator import FakeBotApi
from tests.support.group_flood import COMMANDS, taps_during_a_group_flood
from tests.support.harness import RunningBot


async def main(taps: int) -> None:
    async with FakeBotApi() as api:
        with tempfile.TemporaryDirectory() as folder:
            bot = RunningBot(api, Path(folder) / "flood.sqlite3")
            await bot.start()
            try:
                flood = await taps_during_a_group_flood(api, taps)
            finally:
                await bot.stop()
    waited_ms = sorted(seconds * 1000 for seconds in flood.waited)
    lines = [
        f"{taps} taps during {COMMANDS} group commands: answered in median "
        f"{statistics.median(waited_ms):.1f} ms, max {waited_ms[-1]:.1f} ms",
        f"group replies sent meanwhile: {flood.group_posts} in {flood.seconds:.1f} s",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    arguments = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    arguments.add_argument("--taps", type=int, default=20, help="the player's taps")
    asyncio.run(main(arguments.parse_args().taps))
