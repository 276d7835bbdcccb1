"""How soon chats are answered again once PostgreSQL is back, after a reset or a black hole.

Run from the repository root, with a PostgreSQL server at TEST_DATABASE_URL:

    .venv/bin/python -m benchmarks.outage                  # 6 s cuts, 3 of each kind
    .venv/bin/python -m benchmarks.outage --cut 2 --rounds 5

One bot on production's bounds (`database_wait` 5 s) reaches the server through a loopback
proxy (tests/support/proxy.py) that resets every connection, or black-holes them (kept
open, every byte swallowed). During each cut a player taps once a second; after the return
they tap every 0.2 s until a tap is applied. It prints, per kind of cut, the slowest answer
to a tap during the cut (an apology) and the time from the return to the first tap applied.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import urllib.parse

from bot.emulator import FakeBotApi, StoredMessage
from tests.support.databases import fresh_postgres_database
from tests.support.harness import RunningBot, User
from tests.support.proxy import TcpProxy, through_proxy

APOLOGY = "Sorry, something went wrong on my side. Please try again."
ARROWS = ("⬅️", "➡️", "⬆️", "⬇️")


async def _tap(user: User, board: StoredMessage, label: str) -> tuple[float, bool]:
    """(seconds to the answer, whether the tap was applied rather than apologised for)."""
    started = time.monotonic()
    answer, _ = await user.tap(board, label, edit=False)
    return time.monotonic() - started, answer.get("text") != APOLOGY


async def measure(kind: str, cut: float, rounds: int) -> tuple[list[float], list[float]]:
    """(the slowest answer of each cut, seconds from each return to the first tap applied)."""
    slowest, back = [], []
    async with fresh_postgres_database() as url, FakeBotApi(flood=None) as api:
        parts = urllib.parse.urlsplit(url)
        proxy = TcpProxy(parts.hostname or "127.0.0.1", parts.port or 5432)
        bot = RunningBot(api, through_proxy(url, await proxy.start()), database_wait=5.0)
        await bot.start()
        try:
            anna = User(api, 101, "Anna")
            board = await anna.open_board()
            for round_ in range(rounds):
                await asyncio.sleep(1)  # the board linked, the pool warm
                (proxy.cut if kind == "reset" else proxy.black_hole)()
                ends = time.monotonic() + cut
                waits = []
                while time.monotonic() < ends:
                    waits.append((await _tap(anna, board, ARROWS[round_ % 4]))[0])
                    await asyncio.sleep(max(0.0, min(1.0, ends - time.monotonic())))
                slowest.append(max(waits))
                proxy.restore()
                restored = time.monotonic()
                while not (await _tap(anna, board, ARROWS[(round_ + 1) % 4]))[1]:
                    await asyncio.sleep(0.2)
                back.append(time.monotonic() - restored)
        finally:
            await bot.stop()
            await proxy.stop()
    return slowest, back


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cut", type=float, default=6.0, help="seconds each cut lasts")
    parser.add_argument("--rounds", type=int, default=3, help="cuts of each kind")
    args = parser.parse_args()
    for kind in ("reset", "black hole"):
        slowest, back = asyncio.run(measure(kind, args.cut, args.rounds))
        print(
            f"{kind}: {args.rounds} cuts of {args.cut:g} s; a tap during the cut answered in "
            f"{max(slowest):.2f} s at most; the first tap applied {statistics.median(back):.2f} s "
            f"(median), {max(back):.2f} s (slowest) after the return"
        )


if __name__ == "__main__":
    main()
