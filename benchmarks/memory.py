"""The bot process's memory as more and more distinct users come by: it should level off.

Starts `python -m bot` as an operator would (a SQLite file, long polling) against the Bot API
emulator, then sends users through it in batches: each new user sends /start and taps one
arrow. Every `--every` users, once the bot has gone quiet, it prints the process's resident
memory (VmRSS, Linux). Whatever the bot keeps per user in memory shows up as steady growth;
caches with a bound show up as a plateau.

With `--burst N`, one more player then taps an arrow on their board N times, as fast as the
Bot API delivers the taps: the memory is printed once every tap is answered, and every 15 s
for a minute after, to show what the burst leaves behind. `--root` runs another checkout's
bot (an older commit, for a before-and-after).

    .venv/bin/python -m benchmarks.memory [--users 20000] [--batch 100] [--every 2000]
    .venv/bin/python -m benchmarks.memory --users 2000 --burst 20000 [--root OTHER_CHECKOUT]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.emulator import FakeBotApi

ROOT = Path(__file__).resolve().parents[1]
FIRST_USER = 1_000_000


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def bot_environment(api: FakeBotApi, database: Path) -> dict[str, str]:
    """`python -m bot` against the emulator on a SQLite file, whatever the shell had set."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TELEGRAM_", "BOT_", "WEBHOOK_")) and k != "DATABASE_URL"
    }
    env.update(
        TELEGRAM_BOT_TOKEN=api.token,
        TELEGRAM_BASE_URL=api.base_url,
        BOT_DATABASE=str(database),
        LOG_LEVEL="WARNING",
    )
    return env


async def _boards(events: asyncio.Queue[dict[str, Any]], users: range) -> dict[int, dict]:
    """The board message each user of the batch got (the bot's message with a keyboard)."""
    boards: dict[int, dict] = {}
    while len(boards) < len(users):
        event = await asyncio.wait_for(events.get(), timeout=120)
        message = event.get("message")
        if event["type"] == "message" and message["from"]["is_bot"] and "reply_markup" in message:
            boards[message["chat"]["id"]] = message
    return boards


async def _batch(api: FakeBotApi, events: asyncio.Queue[dict[str, Any]], users: range) -> None:
    for user in users:
        api.add_user(user, f"Player {user}", language_code=("en", "nl", "de")[user % 3])
        api.send_text(user, user, "/start")
    queries = []
    for user, board in (await _boards(events, users)).items():
        data = board["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        queries.append(api.tap(user, user, board["message_id"], data, strict=False))
    for query in queries:
        await api.wait_answer(query, timeout=120)


async def _settle(api: FakeBotApi, quiet: float = 1.0) -> None:
    """Wait until the bot has made no call but getUpdates for `quiet` seconds (redraws done)."""
    while True:
        start = len(api.requests)
        await asyncio.sleep(quiet)
        if all(r.method == "getUpdates" for r in api.requests[start:]):
            return


async def _burst(api: FakeBotApi, pid: int, taps: int) -> None:
    """One player's `taps` arrow taps at once; the memory then and over the next minute."""
    events = api.subscribe()
    player = FIRST_USER - 1
    api.add_user(player, "Burst")
    api.send_text(player, player, "/start")
    board = (await _boards(events, range(player, player + 1)))[player]
    arrows = [row[0]["callback_data"] for row in board["reply_markup"]["inline_keyboard"][:2]]
    await _settle(api)
    before = rss_mib(pid)
    started = time.monotonic()
    queries = [
        api.tap(player, player, board["message_id"], arrows[n % 2], strict=False)
        for n in range(taps)
    ]
    unanswered = 0
    for query in queries:
        try:
            await api.wait_answer(query, timeout=30)
        except TimeoutError:  # the emulator dropped the answer's connection, say
            unanswered += 1
    answered = time.monotonic() - started
    await _settle(api)
    print(
        f"burst of {taps} taps from one player, answered in {answered:.0f} s "
        f"({unanswered} unanswered)",
        flush=True,
    )
    print(f"{'seconds after':>13}  {'RSS MiB':>8}  {'over the plateau':>16}", flush=True)
    print(f"{'before':>13}  {before:>8.1f}", flush=True)
    for after in range(0, 61, 15):
        if after:
            await asyncio.sleep(15)
        now = rss_mib(pid)
        print(f"{after:>13}  {now:>8.1f}  {now - before:>+16.1f}", flush=True)


async def run(users: int, batch: int, every: int, burst: int, root: Path) -> None:
    async with FakeBotApi() as api:
        events = api.subscribe()
        with tempfile.TemporaryDirectory() as folder:
            env = bot_environment(api, Path(folder) / "memory.sqlite3")
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=root, env=env
            )
            try:
                await api.wait_request("setMyCommands", timeout=60)
                await _settle(api)
                print(f"{'users':>7}  {'RSS MiB':>8}  {'seconds':>7}", flush=True)
                print(f"{0:>7}  {rss_mib(process.pid):>8.1f}  {0:>7}", flush=True)
                started = time.monotonic()
                for done in range(0, users, batch):
                    first = FIRST_USER + done
                    await _batch(api, events, range(first, first + min(batch, users - done)))
                    while not events.empty():
                        events.get_nowait()
                    served = min(done + batch, users)
                    if served % every == 0 or served == users:
                        await _settle(api)
                        elapsed = time.monotonic() - started
                        print(
                            f"{served:>7}  {rss_mib(process.pid):>8.1f}  {elapsed:>7.0f}",
                            flush=True,
                        )
                if burst:
                    await _burst(api, process.pid, burst)
            finally:
                process.terminate()
                await process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--every", type=int, default=2_000)
    parser.add_argument("--burst", type=int, default=0, help="one player's taps at the end")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose bot runs")
    args = parser.parse_args()
    asyncio.run(run(args.users, args.batch, args.every, args.burst, args.root))


if __name__ == "__main__":
    main()
