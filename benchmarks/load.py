"""Many chats tapping at once: the bot against the floor of python-telegram-bot itself.

Both run as real processes against the Bot API emulator (which runs here): first the bot
(`python -m bot`, SQLite file), then the floor, a minimal Application that answers each tap
and edits its message with a fixed text and a counter. Every chat sends all its taps at once
(open loop), so the figures are saturation throughput. Printed per run: taps/s (taps sent
until the last one is answered), p50/p99 latency from a tap being sent to the first edit of
its chat that reflects it (the bot coalesces a chat's moves into one edit every 0.5 s, the
floor edits once per tap), and the process's peak memory (VmHWM). Taps that move nothing
get a toast and no edit; they count for throughput, not for latency.

    .venv/bin/python -m benchmarks.load [--chats 200] [--taps 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ApplicationBuilder, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.emulator import FakeBotApi

ROOT = Path(__file__).resolve().parent.parent
FLOOR_BUTTON = InlineKeyboardMarkup([[InlineKeyboardButton("tap", callback_data="tap")]])


@dataclass
class Result:
    taps: int
    seconds: float
    latencies: list[float]
    peak_kib: int

    def line(self, name: str) -> str:
        ordered = sorted(self.latencies)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        return (
            f"{name:6} {self.taps / self.seconds:8.0f} taps/s   p50 "
            f"{statistics.median(ordered) * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms   "
            f"peak {self.peak_kib / 1024:6.1f} MiB"
        )


def run_floor() -> None:
    """The floor: answer the tap, edit the message with a fixed text; nothing else."""
    taps = 0

    async def start(update: Update, _: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None
        await update.get_bot().send_message(
            update.effective_chat.id, "floor", reply_markup=FLOOR_BUTTON
        )

    async def tap(update: Update, _: ContextTypes.DEFAULT_TYPE) -> None:
        nonlocal taps
        taps += 1
        text = f"tap {taps}"  # unique, so no edit is refused as "not modified"
        query = update.callback_query
        assert query is not None
        await query.answer()
        await query.edit_message_text(text, reply_markup=FLOOR_BUTTON)

    application = (
        ApplicationBuilder()
        .token(os.environ["TELEGRAM_BOT_TOKEN"])
        .base_url(os.environ["TELEGRAM_BASE_URL"])
        .concurrent_updates(True)
        .build()
    )
    application.add_handler(CommandHandler("start", start))
    application.add_handler(CallbackQueryHandler(tap))
    application.run_polling(allowed_updates=Update.ALL_TYPES)


def _peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


async def measure(kind: str, chats: int, taps: int, folder: Path) -> Result:
    async with FakeBotApi() as api:
        env = dict(
            os.environ,
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_BASE_URL=api.base_url,
            BOT_DATABASE=str(folder / f"{kind}.sqlite3"),
            LOG_LEVEL="WARNING",
        )
        command = ["-m", "bot"] if kind == "bot" else ["-m", "benchmarks.load", "--floor"]
        process = await asyncio.create_subprocess_exec(sys.executable, *command, cwd=ROOT, env=env)
        try:
            await api.wait_request("getUpdates", timeout=60)
            boards: dict[int, tuple[int, str]] = {}
            for chat in range(1, chats + 1):
                api.add_user(chat, f"Player {chat}")
                mark = api.mark()
                api.send_text(chat, chat, "/start")
                sent = await api.wait_for(
                    lambda r, c=chat: (
                        r.method == "sendMessage"
                        and r.params.get("chat_id") == c
                        and "reply_markup" in r.params
                    ),
                    after=mark,
                    timeout=30,
                )
                first = sent.params["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
                boards[chat] = (sent.result["message_id"], first.rsplit(":", 1)[0])
            rng = random.Random(1)
            mark, begin = api.mark(), time.time()
            sent_at: dict[str, tuple[int, float]] = {}
            for _ in range(taps):
                for chat, (message_id, prefix) in boards.items():
                    data = "tap" if kind == "floor" else f"{prefix}:{rng.choice('lurd')}"
                    query = api.tap(chat, chat, message_id, data, strict=False)
                    sent_at[query] = (chat, time.time())
            queries = api.world.queries
            while any(queries[q].answer is None for q in sent_at):
                await asyncio.sleep(0.05)
            answers = {
                r.params["callback_query_id"]: r
                for r in api.find_requests("answerCallbackQuery", after=mark)
            }
            seconds = max(r.time for r in answers.values()) - begin
            await asyncio.sleep(1.5)  # the last coalesced edits
            edits: dict[int, list[float]] = {}
            for edit in api.find_requests("editMessageText", after=mark):
                edits.setdefault(edit.params["chat_id"], []).append(edit.time)
            latencies = []
            for query, (chat, when) in sent_at.items():
                answer = answers[query]
                if answer.params.get("text"):
                    continue  # nothing moved: no edit to wait for
                after = [t for t in edits.get(chat, []) if t >= answer.time]
                if after:
                    latencies.append(min(after) - when)
            return Result(len(sent_at), seconds, latencies, _peak_kib(process.pid))
        finally:
            process.terminate()
            await process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=200)
    parser.add_argument("--taps", type=int, default=50)
    parser.add_argument("--floor", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        run_floor()
        return
    with tempfile.TemporaryDirectory() as folder:
        bot = asyncio.run(measure("bot", args.chats, args.taps, Path(folder)))
        floor = asyncio.run(measure("floor", args.chats, args.taps, Path(folder)))
    print(f"{args.chats} chats x {args.taps} taps, all sent at once")
    print(bot.line("bot"))
    print(floor.line("floor"))
    bot_p99 = sorted(bot.latencies)[round(0.99 * (len(bot.latencies) - 1))]
    floor_p99 = sorted(floor.latencies)[round(0.99 * (len(floor.latencies) - 1))]
    print(
        f"bot / floor: throughput {bot.taps / bot.seconds / (floor.taps / floor.seconds):.2f}x "
        f"(target >= 0.8), p99 {bot_p99 / floor_p99:.2f}x (target <= 1.5)"
    )


if __name__ == "__main__":
    main()
