"""How long a bot process takes to exit on SIGTERM with replays waiting to be drawn.

Run from the repository root:

    .venv/bin/python -m benchmarks.shutdown                   # 3 replays of 1,000 moves
    .venv/bin/python -m benchmarks.shutdown --root OTHER_CHECKOUT --replays 3

Players each ask for the replay of a 1,000-move game (tests/data/long_game.json), as many as
the picture queue takes (`RENDERS_QUEUED`: more are told to come back); once every replay
has been started (its "uploading a video" action sent), the bot gets SIGTERM.
It prints the seconds from the signal to the exit and how many replays went out meanwhile.
systemd sends SIGKILL 90 s after SIGTERM by default; the target is well inside that. `--root`
runs the bot of another checkout (an older commit, for a before/after figure).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from bot.emulator import FakeBotApi
from bot.services.workers import RENDERS_QUEUED
from tests.support.replays import give_long_games

ROOT = Path(__file__).resolve().parent.parent
FIRST_PLAYER = 1000


async def measure(root: Path, players: int) -> tuple[float, int, int]:
    """(seconds from SIGTERM to exit, exit code, replays sent meanwhile)."""
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "bot.sqlite3"
        await give_long_games(database, range(FIRST_PLAYER, FIRST_PLAYER + players))
        async with FakeBotApi(flood=None) as api:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "BOT_"))}
            env.update(
                TELEGRAM_BOT_TOKEN=api.token,
                TELEGRAM_BASE_URL=api.base_url,
                BOT_DATABASE=str(database),
                LOG_LEVEL="ERROR",
            )
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=root, env=env
            )
            try:
                await api.wait_request("setMyCommands", timeout=60)
                for user_id in range(FIRST_PLAYER, FIRST_PLAYER + players):
                    api.add_user(user_id, f"Player {user_id}")
                    api.send_text(user_id, user_id, "/replay")
                while len(api.find_requests("sendChatAction")) < players:
                    await asyncio.sleep(0.05)
                await asyncio.sleep(0.5)  # each one's render handed to the worker pool
                sent = len(api.find_requests("sendAnimation"))
                started = time.monotonic()
                process.send_signal(signal.SIGTERM)
                code = await asyncio.wait_for(process.wait(), timeout=300)
                elapsed = time.monotonic() - started
            finally:
                if process.returncode is None:
                    process.kill()
                    await process.wait()
            return elapsed, code, len(api.find_requests("sendAnimation")) - sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose bot runs")
    parser.add_argument("--replays", type=int, default=RENDERS_QUEUED)
    args = parser.parse_args()
    elapsed, code, sent = asyncio.run(measure(args.root, args.replays))
    print(
        f"SIGTERM with {args.replays} replays queued: exited in {elapsed:.1f} s "
        f"(exit code {code}), {sent} replays sent after the signal"
    )


if __name__ == "__main__":
    main()
