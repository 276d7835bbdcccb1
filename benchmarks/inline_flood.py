"""Another player's taps while one account floods the bot with inline queries.

One player with cards to offer sends `--queries` inline queries as fast as the Bot API takes
them, each a different text (as typing would); meanwhile another player taps arrows, one
after another. This prints how many queries were answered, and the other player's tap
latency: median and worst, against the same taps with no flood.

    .venv/bin/python -m benchmarks.inline_flood [--queries 2000] [--taps 40]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bot.emulator import FakeBotApi
from tests.support.boards import button_data
from tests.support.harness import RunningBot, User


async def _latencies(api: FakeBotApi, user: User, taps: int) -> list[float]:
    board = user.board()
    game_id = button_data(board, "⬅️").split(":")[1]
    waited = []
    for n in range(taps):
        began = time.perf_counter()
        data = f"g:{game_id}:{'lrud'[n % 4]}"
        query = api.tap(user.id, user.id, board.message_id, data, strict=False)
        await api.wait_answer(query, timeout=120)
        waited.append(time.perf_counter() - began)
    return waited


async def main(queries: int, taps: int) -> None:
    async with FakeBotApi(inline_mode=True) as api:
        with tempfile.TemporaryDirectory() as folder:
            bot = RunningBot(api, Path(folder) / "inline.sqlite3")
            await bot.start()
            try:
                anna, ben = User(api, 101, "Anna"), User(api, 202, "Ben")
                board = await anna.open_board()
                await anna.tap(board, "⬅️", edit=False)
                await api.wait_inline_answer(api.inline_query(101, 101, ""), timeout=60)
                await ben.open_board()
                quiet = await _latencies(api, ben, taps)
                flood = [api.inline_query(101, 101, f"q{n}") for n in range(queries)]
                busy = await _latencies(api, ben, taps)
                answered = sum(api.world.inline_queries[q].answer is not None for q in flood)
            finally:
                await bot.stop()
    ms = 1000
    print(f"{queries} inline queries from one player: {answered} answered by the last tap")
    print(f"another player's taps alone: median {statistics.median(quiet) * ms:.0f} ms")
    print(
        f"the same during the flood: median {statistics.median(busy) * ms:.0f} ms, "
        f"worst {max(busy) * ms:.0f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--taps", type=int, default=40)
    args = parser.parse_args()
    asyncio.run(main(args.queries, args.taps))
