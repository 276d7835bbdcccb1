"""How many times a challenge card is edited per minute while 50 players play at once.

Runs the real Application against the Bot API emulator with the production card interval,
has 50 players join one group challenge and tap an arrow about once a second each for a
minute, and counts the card edits the group received.

    .venv/bin/python -m benchmarks.challenge [--players 50] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bot.config import Config
from bot.emulator import FakeBotApi
from bot.lifecycle import running

GROUP = -100999
ARROWS = ("⬅️", "⬆️", "➡️", "⬇️")


def _buttons(message: dict) -> dict[str, str]:
    rows = message["reply_markup"]["inline_keyboard"]
    return {b["text"]: b.get("callback_data") or b.get("url", "") for row in rows for b in row}


async def run(players: int, seconds: float) -> tuple[int, int, float]:
    async with FakeBotApi() as api:
        with tempfile.TemporaryDirectory() as folder:
            config = Config(api.token, api.base_url, Path(folder) / "bench.sqlite3", "WARNING")
            async with running(config, poll_timeout=1):
                api.add_user(1, "Host")
                api.add_group(GROUP, "Bench", admins={1})
                api.send_text(1, GROUP, "/challenge")
                card = (await api.wait_request("sendMessage", chat_id=GROUP)).result
                payload = _buttons(card)["▶️ Play"].split("start=")[1]
                boards = {}
                for user in range(100, 100 + players):
                    api.add_user(user, f"P{user}")
                    api.send_text(user, user, f"/start {payload}")
                    await api.wait_request("sendMessage", chat_id=user)
                    boards[user] = (await api.wait_request("sendMessage", chat_id=user)).result
                start_mark, start = api.mark(), time.monotonic()
                taps = 0
                while time.monotonic() - start < seconds:
                    for user, board in boards.items():
                        data = _buttons(board)[ARROWS[taps // players % 4]]
                        api.tap(user, user, board["message_id"], data, strict=False)
                        taps += 1
                    await asyncio.sleep(1.0)
                elapsed = time.monotonic() - start
                edits = api.find_requests(
                    "editMessageText",
                    after=start_mark,
                    chat_id=GROUP,
                    message_id=card["message_id"],
                )
                return len(edits), taps, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    edits, taps, elapsed = asyncio.run(run(args.players, args.seconds))
    print(f"{args.players} players, {taps} taps in {elapsed:.0f} s")
    print(f"card edits: {edits} ({edits / elapsed * 60:.1f} per minute; group budget ~20/min)")


if __name__ == "__main__":
    main()
