"""One member hammering a group board's buttons: how long the group is silenced, and the cost.

Starts `python -m bot` as an operator would (a SQLite file, long polling, Telegram's pace)
against the Bot API emulator. A member taps 🆕, a size in the size menu and "My current game" in
turn, `--taps` times, as fast as the Bot API delivers them, in `--rounds` rounds. Once every tap
is answered, another member sends /help. This prints the bot process's resident memory after
each round (what later rounds add is what the bot keeps per tap), how long the /help reply took
(given up after `--wait` seconds), the games the taps opened, and, from the bot's shutdown
warning, how many posts were still queued: each waits for one of the group's 20 slots a minute,
so that count is the group's silence for everyone.

    .venv/bin/python -m benchmarks.tap_flood [--taps 2000] [--rounds 4] [--wait 60]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.memory import ROOT, bot_environment, rss_mib
from bot.config import TELEGRAM_PACE
from bot.emulator import TELEGRAM_LIMITS, FakeBotApi, RecordedRequest
from tests.support.databases import count_rows
from tests.support.harness import User

GROUP = -100300400
KINDS = ("new", "new:4", "cur")  # 🆕, a size in the size menu, "My current game"
UNSENT = re.compile(rb"(\d+) messages and edits not sent at shutdown")


def _help_reply(request: RecordedRequest) -> bool:
    text = request.params.get("text") or ""
    return request.method == "sendMessage" and "/rules" in text


async def run(taps: int, rounds: int, wait: float) -> None:
    async with FakeBotApi(flood=TELEGRAM_LIMITS) as api:
        with tempfile.TemporaryDirectory() as folder:
            database = Path(folder) / "flood.sqlite3"
            env = bot_environment(api, database)
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=ROOT, env=env, stderr=asyncio.subprocess.PIPE
            )
            try:
                await api.wait_request("setMyCommands", timeout=60)
                anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
                api.add_group(GROUP, "Club", admins={anna.id}, members={anna.id, bob.id})
                board = await anna.open_board("/new 4", replies=1, chat_id=GROUP)
                rss = [rss_mib(process.pid)]
                for _ in range(rounds):
                    queries = [
                        api.tap(anna.id, GROUP, board.message_id, KINDS[n % 3], strict=False)
                        for n in range(taps)
                    ]
                    for query in queries:
                        await api.wait_answer(query, timeout=600)
                    rss.append(rss_mib(process.pid))
                mark = api.mark()
                asked = time.monotonic()
                api.send_text(bob.id, GROUP, "/help")
                try:
                    await api.wait_for(_help_reply, after=mark, timeout=wait)
                    answered = f"{time.monotonic() - asked:.1f} s"
                except TimeoutError:
                    answered = f"not within {wait:.0f} s"
            finally:
                process.terminate()
                _, stderr = await process.communicate()
            games = await count_rows(database, "games", "owner_id = ?", 101)
    unsent = UNSENT.search(stderr)
    queued = int(unsent.group(1)) if unsent else 0
    print(f"{rounds} × {taps} taps from one member of a group")
    print("bot RSS after each round: " + ", ".join(f"{mib:.1f}" for mib in rss) + " MiB")
    # The first round's growth is the peak of a burst's working set (Python keeps its arenas);
    # what each later round adds is what the bot keeps per tap.
    kept = (rss[-1] - rss[1]) * 1024 / (taps * (rounds - 1)) if rounds > 1 else float("nan")
    print(f"memory kept per tap after the first round: {kept:.2f} KiB")
    print(f"another member's /help answered: {answered}")
    minutes = queued / TELEGRAM_PACE.group_per_minute
    print(f"posts still queued for the group at the end: {queued} ({minutes:.1f} min of silence)")
    print(f"games opened: {games}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--taps", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--wait", type=float, default=60.0)
    args = parser.parse_args()
    asyncio.run(run(args.taps, args.rounds, args.wait))
