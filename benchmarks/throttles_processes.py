"""One player's throttles with one bot process and with three: what a flood gets through.

Runs `python -m bot --webhook` on a fresh PostgreSQL schema, first one process, then three
behind the emulator's round-robin (a load balancer), each with the Mini App on its web
server, against the Bot API emulator (no flood limits: the bot's throttles are measured, not
Telegram's). For `--seconds`, one player taps a forged button in four chats at once, as fast
as the chats deliver taps (it moves nothing, so only the taps' budget refuses it, not the
game's moves'; tests/support/throttles.py); then,
for as long, another player calls the Mini App's `open` over `--connections`, each call to
the next process (one flood at a time, so neither takes the other's CPU), once the
processes' start (their hint workers' compilation) is over. Printed for each: the calls let
through per second (not answered "Easy there" or 429), with one process and with three, and
their ratio; one budget for all processes gives 1.00 (a burst of 60, then 10 a second: 16 a
second over 10 s), one budget per process about 3. A chat's taps arrive one at a time, each
once the previous one was answered, so a machine too busy to answer more than the budget
lets through what it is sent: the tap line shows both. Then a third player sends `--messages`
/help at once in their private chat, and a fourth types as many inline queries (each
delivered once the previous one was handled): their lines show what got an answer, over the
seconds the flood took (a burst of 10, then 1 a second, for each).

    .venv/bin/python -m benchmarks.throttles_processes --database-url URL \\
        [--seconds 10] [--connections 30] [--messages 100] [--root CHECKOUT]

The database URL defaults to DATABASE_URL, else TEST_DATABASE_URL. `--root` runs another
checkout's bot (the code before a change, say).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import tempfile
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.load import ROOT, serving
from bot.emulator import FakeBotApi
from tests.support.throttles import (
    flood_commands,
    flood_inline,
    flood_page,
    flood_taps,
    tap_targets,
)

WEBAPP_URL = "https://throttles.example.org"
TAPPER, CALLER, SENDER, TYPIST = 1, 2, 3, 4
GROUP = -100500
KINDS = {1: "postgres-webhook", 3: "postgres-x3"}


@dataclass(frozen=True)
class Figures:
    processes: int
    taps: tuple[int, int]  # let through, sent
    calls: tuple[int, int]
    commands: tuple[int, float]  # answered, seconds
    queries: tuple[int, float]


def _cpu_seconds(pids: list[int]) -> float:
    """The CPU time so far of the processes and of those they started (the hint workers)."""
    stats: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stats[int(entry.name)] = (entry / "stat").read_text().rsplit(")", 1)[1].split()
    family, grown = set(pids), True
    while grown:  # fields[1] is the parent's pid
        children = {pid for pid, fields in stats.items() if int(fields[1]) in family}
        grown = not children <= family
        family |= children
    ticks = sum(int(v) for pid in family if pid in stats for v in stats[pid][11:13])
    return ticks / os.sysconf("SC_CLK_TCK")


async def _settled(pids: list[int]) -> None:
    """Until the processes use under a tenth of a core for a second (60 s at most)."""
    for _ in range(60):
        before = _cpu_seconds(pids)
        await asyncio.sleep(1)
        if _cpu_seconds(pids) - before < 0.1:
            return


async def measure(
    processes: int,
    database_url: str,
    seconds: float,
    connections: int,
    messages: int,
    root: Path,
) -> Figures:
    with tempfile.TemporaryDirectory() as folder:
        async with (
            FakeBotApi(flood=None) as api,
            serving(
                api, KINDS[processes], Path(folder), database_url, root, WEBAPP_URL=WEBAPP_URL
            ) as running,
        ):
            api.add_user(TAPPER, "Tapper")
            api.add_user(CALLER, "Caller")
            api.add_user(SENDER, "Sender")
            api.add_user(TYPIST, "Typist")
            api.world.inline_mode = True
            targets = tap_targets(api, TAPPER, GROUP)
            await _settled([process.pid for process in running])
            bases = [target.rsplit("/", 1)[0] for target in api.webhook_targets]
            taps = await flood_taps(api, TAPPER, targets, seconds=seconds)
            calls = await flood_page(api, CALLER, bases, connections, seconds=seconds)
            commands = await _timed(flood_commands(api, SENDER, messages))
            queries = await _timed(flood_inline(api, TYPIST, messages))
    return Figures(processes, taps, calls, commands, queries)


async def _timed(flood: Awaitable[tuple[int, int]]) -> tuple[int, float]:
    """What `flood` let through, and the seconds it took."""
    started = time.monotonic()
    let_through, _ = await flood
    return let_through, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL") or os.environ.get("TEST_DATABASE_URL"),
    )
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=30)
    parser.add_argument("--messages", type=int, default=100)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose bot runs")
    args = parser.parse_args()
    if not args.database_url:
        raise SystemExit("needs --database-url (or DATABASE_URL, TEST_DATABASE_URL)")
    runs = {
        n: asyncio.run(
            measure(n, args.database_url, args.seconds, args.connections, args.messages, args.root)
        )
        for n in KINDS
    }
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"{args.seconds:.0f} s of flood, {os.cpu_count()} cores, load average {load}")
    for name, pick in (("chat taps", "taps"), ("Mini App calls", "calls")):
        (one, one_sent), (three, three_sent) = (getattr(runs[n], pick) for n in KINDS)
        print(
            f"{name:15} 1 process {one / args.seconds:5.1f}/s ({one} of {one_sent})   "
            f"3 processes {three / args.seconds:5.1f}/s ({three} of {three_sent})   "
            f"ratio {three / one:.2f}"
        )
    for name, pick in (("commands", "commands"), ("inline queries", "queries")):
        (one, one_took), (three, three_took) = (getattr(runs[n], pick) for n in KINDS)
        print(
            f"{name:15} 1 process {one:4} of {args.messages} in {one_took:4.1f} s   "
            f"3 processes {three:4} of {args.messages} in {three_took:4.1f} s   "
            f"ratio {three / one:.2f}"
        )


if __name__ == "__main__":
    main()
