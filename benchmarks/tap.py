"""The bot's own time per tap: from the moment the handler starts to the edit request arriving.

Runs the real Application against the Bot API emulator with a real SQLite file and taps
arrows a few hundred times, one after another, across several chats. Network time to
Telegram is not included (the emulator is local), so this is the bot's share of a tap.

    .venv/bin/python -m benchmarks.tap [--taps 400]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from telegram import Update
from telegram.ext import ContextTypes, TypeHandler

from bot.config import Config
from bot.emulator import FakeBotApi
from bot.lifecycle import opened, serving

ARROWS = ("g:{}:l", "g:{}:u", "g:{}:r", "g:{}:d")


def bench_config(api: FakeBotApi, folder: str, **options: Any) -> Config:
    """A bot on a fresh SQLite file in `folder`, talking to the emulator, logging warnings."""
    return Config(api.token, api.base_url, Path(folder) / "bench.sqlite3", "WARNING", **options)


async def run(taps: int, chats: int) -> list[float]:
    started: dict[str, float] = {}

    async def stamp(update: Update, _: ContextTypes.DEFAULT_TYPE) -> None:
        if update.callback_query is not None:
            started[update.callback_query.id] = time.time()  # the emulator logs time.time()

    # No flood limits and no pacing here: their waiting is deliberate, not the bot's work.
    async with FakeBotApi(flood=None) as api:
        with tempfile.TemporaryDirectory() as folder:
            async with opened(bench_config(api, folder, pace=None)) as process:
                process.application.add_handler(TypeHandler(Update, stamp), group=-3)  # first
                async with serving(process, poll_timeout=1):
                    boards = {}
                    for chat in range(1, chats + 1):
                        api.add_user(chat, f"Player {chat}")
                        api.send_text(chat, chat, "/start")
                        await api.wait_request("sendMessage", chat_id=chat)
                        sent = await api.wait_request("sendMessage", chat_id=chat)
                        game_id = sent.result["reply_markup"]["inline_keyboard"][0][0][
                            "callback_data"
                        ].split(":")[1]
                        boards[chat] = (sent.result["message_id"], game_id)
                    costs = []
                    for i in range(taps):
                        chat = 1 + i % chats
                        message_id, game_id = boards[chat]
                        data = ARROWS[(i // chats) % 4].format(game_id)
                        mark = api.mark()
                        query = api.tap(chat, chat, message_id, data, strict=False)
                        answer = await api.wait_answer(query)
                        if answer.get("text"):
                            continue  # that direction moved nothing: no edit to time
                        edit = await api.wait_request("editMessageText", after=mark, chat_id=chat)
                        costs.append(edit.time - started[query])
                    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=400)
    parser.add_argument("--chats", type=int, default=8)
    args = parser.parse_args()
    costs = sorted(asyncio.run(run(args.taps, args.chats)))
    ms = [c * 1000 for c in costs]
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    print(f"taps timed: {len(ms)} (of {args.taps}; taps that moved nothing have no edit)")
    print(f"handler start -> edit request: median {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms")


if __name__ == "__main__":
    main()
