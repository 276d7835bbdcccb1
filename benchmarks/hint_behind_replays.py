"""A hint asked while other players' replays are being drawn: how long it waits.

Each of `--replays` players asks for the replay of a long 6×6 game (up to 300 moves); once
the bot has taken them on (or refused them), another player taps 💡. This prints how long
the hint took to come (and, first, a hint with no replay drawing), and how many replays
were taken on and how many refused at once.

    .venv/bin/python -m benchmarks.hint_behind_replays [--replays 3]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bot.emulator import FakeBotApi, StoredMessage
from tests.support.boards import button_data
from tests.support.databases import long_game
from tests.support.harness import RunningBot, User


async def _hint_wait(api: FakeBotApi, user: User, board: StoredMessage) -> float:
    asked = time.monotonic()
    query = api.tap(user.id, user.id, board.message_id, button_data(board, "💡"))
    await api.wait_answer(query, timeout=600)
    return time.monotonic() - asked


async def main(replays: int) -> None:
    async with FakeBotApi() as api:
        with tempfile.TemporaryDirectory() as folder:
            bot = RunningBot(api, Path(folder) / "replays.sqlite3", hint_workers_at_start=True)
            await bot.start()
            try:
                viewers = [User(api, 300 + n, f"Viewer {n}") for n in range(replays)]
                for n, viewer in enumerate(viewers):
                    await long_game(bot.database, viewer.id, seed=n + 1)
                thinker = User(api, 101, "Thinker")
                board = await thinker.open_board()
                alone = await _hint_wait(api, thinker, board)
                mark = api.mark()
                for viewer in viewers:
                    api.send_text(viewer.id, viewer.id, "/replay")
                for viewer in viewers:
                    await api.wait_request(
                        ("sendChatAction", "sendMessage"), after=mark, chat_id=viewer.id
                    )
                waited = await _hint_wait(api, thinker, board)
                taken = len(api.find_requests("sendChatAction", after=mark))
            finally:
                await bot.stop()
    print(f"{replays} replays asked for: {taken} taken on, {replays - taken} refused at once")
    print(f"a hint with no replay drawing came after {alone:.2f} s")
    print(f"a hint asked meanwhile came after {waited:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replays", type=int, default=3)
    asyncio.run(main(parser.parse_args().replays))
