"""Many chats tapping at once: the bot against the floor of python-telegram-bot itself.

Both run as real processes against the Bot API emulator (which runs here, without Telegram's
flood limits: `benchmarks.pace` plays at Telegram's pace): first the bot (`python -m bot`,
SQLite file), then the floor, a minimal Application that answers each tap and edits its
message with a fixed text and a counter. Every chat sends all its taps at once (open loop),
so the figures are saturation throughput. Printed per run: taps/s (taps sent until the last
one is answered), p50/p99 latency from a tap being sent to the first edit of its chat that
reflects it (the bot edits each chat at Telegram's pace, a burst then one a second, and
coalesces the moves in between; the floor edits once per tap), and the processes' peak
memory (VmHWM, the largest one). Taps that move nothing get a toast and no edit; they count
for throughput, not for latency.

    .venv/bin/python -m benchmarks.load [--chats 200] [--taps 50]

`--backends` compares deployments instead (comma-separated, in that order):

    sqlite            one process, long polling, SQLite file (the default deployment)
    postgres          one process, long polling, PostgreSQL
    postgres-webhook  one process, webhook, PostgreSQL
    postgres-x2       two processes, webhook, one PostgreSQL: the emulator delivers
                      round-robin to both, as a load balancer would
    postgres-x3       the same with three processes
    floor             the python-telegram-bot floor described above
    floor-postgres    the floor committing one row per tap to PostgreSQL before its edit:
                      the least a bot that keeps every move in that database can do

    .venv/bin/python -m benchmarks.load --backends sqlite,postgres,postgres-x2 \
        --database-url postgresql://postgres@127.0.0.1:54329/bot2048_test

The PostgreSQL runs need a server: --database-url, else DATABASE_URL or TEST_DATABASE_URL
(`.ci/postgres start DIR PORT --durable` starts one). Each run gets a fresh schema there. In
webhook mode Telegram sends a chat's updates one at a time, each once the previous one was
answered, and at most `max_connections` at once; the emulator does the same.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import socket
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)

from bot.emulator import FakeBotApi

ROOT = Path(__file__).resolve().parent.parent
FLOOR_BUTTON = InlineKeyboardMarkup([[InlineKeyboardButton("tap", callback_data="tap")]])
WEBHOOK_SECRET = "load-benchmark"


@dataclass(frozen=True)
class Setup:
    """One way to deploy the bot: how many processes, how updates arrive, where data lives."""

    processes: int = 1
    webhook: bool = False
    postgres: bool = False
    floor: bool = False


SETUPS = {
    "sqlite": Setup(),
    "postgres": Setup(postgres=True),
    "postgres-webhook": Setup(webhook=True, postgres=True),
    "postgres-x2": Setup(processes=2, webhook=True, postgres=True),
    "postgres-x3": Setup(processes=3, webhook=True, postgres=True),
    "floor": Setup(floor=True),
    "floor-postgres": Setup(postgres=True, floor=True),
}


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
            f"{name:16} {self.taps / self.seconds:8.0f} taps/s   p50 "
            f"{statistics.median(ordered) * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms   "
            f"peak {self.peak_kib / 1024:6.1f} MiB"
        )


def run_floor() -> None:
    """The floor: answer the tap, edit the message with a fixed text; nothing else.

    With DATABASE_URL set it first counts the tap in a PostgreSQL row, one statement that
    commits to disk: a tap's least work that keeps it, so the bot's own round trips can be
    told from the one any durable bot pays.
    """
    taps = 0
    database_url = os.environ.get("DATABASE_URL")
    pool: asyncpg.Pool | None = None

    async def connect(_: Application) -> None:
        nonlocal pool
        if database_url:
            pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2)
            await pool.execute(
                "CREATE TABLE IF NOT EXISTS floor_taps (chat_id BIGINT PRIMARY KEY, taps INT)"
            )

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
        assert query is not None and update.effective_chat is not None
        if pool is not None:
            await pool.execute(
                "INSERT INTO floor_taps VALUES ($1, 1)"
                " ON CONFLICT (chat_id) DO UPDATE SET taps = floor_taps.taps + 1",
                update.effective_chat.id,
            )
        await query.answer()
        await query.edit_message_text(text, reply_markup=FLOOR_BUTTON)

    application = (
        ApplicationBuilder()
        .token(os.environ["TELEGRAM_BOT_TOKEN"])
        .base_url(os.environ["TELEGRAM_BASE_URL"])
        .concurrent_updates(True)
        .post_init(connect)
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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.asynccontextmanager
async def _fresh_schema(url: str) -> AsyncIterator[str]:
    """A URL whose tables go into a new schema, dropped afterwards."""
    schema = f"load_{uuid.uuid4().hex[:12]}"
    connection = await asyncpg.connect(url)
    await connection.execute(f"CREATE SCHEMA {schema}")
    await connection.close()
    try:
        yield f"{url}{'&' if '?' in url else '?'}search_path={schema}"
    finally:
        connection = await asyncpg.connect(url)
        await connection.execute(f"DROP SCHEMA {schema} CASCADE")
        await connection.close()


async def _wait_serving(port: int, process: asyncio.subprocess.Process) -> None:
    """Until the process's /healthz says 200: its web server answers 503 while it starts."""
    deadline = time.monotonic() + 60
    while True:
        if process.returncode is not None:
            raise RuntimeError("a bot process exited during start-up")
        with contextlib.suppress(OSError):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /healthz HTTP/1.0\r\n\r\n")
            status = await reader.readline()
            writer.close()
            if status.split()[1:2] == [b"200"]:
                return
        if time.monotonic() > deadline:
            raise RuntimeError("a bot process did not serve within 60 s")
        await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def serving(
    api: FakeBotApi,
    kind: str,
    folder: Path,
    database_url: str | None = None,
    root: Path = ROOT,
    **settings: str,
) -> AsyncIterator[list[asyncio.subprocess.Process]]:
    """The processes of one deployment (`kind`: a --backends name, or "bot") talking to `api`,
    from the moment they take updates until they are stopped: `root`'s bot, with `settings`
    added to its environment."""
    setup = SETUPS["sqlite" if kind == "bot" else kind]
    async with contextlib.AsyncExitStack() as stack:
        env = dict(
            os.environ,
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_BASE_URL=api.base_url,
            BOT_DATABASE=str(folder / f"{kind}.sqlite3"),
            LOG_LEVEL="WARNING",
        )
        for name in ("DATABASE_URL", "WEBHOOK_URL", "WEBHOOK_SECRET", "PORT", "LISTEN"):
            env.pop(name, None)
        env.update(settings)
        if setup.postgres:
            if not database_url:
                raise SystemExit(f"{kind}: needs --database-url (or DATABASE_URL)")
            env["DATABASE_URL"] = await stack.enter_async_context(_fresh_schema(database_url))
        command = ["-m", "bot"] if not setup.floor else ["-m", "benchmarks.load", "--floor"]
        processes: list[asyncio.subprocess.Process] = []
        ports = [_free_port() for _ in range(setup.processes)]
        try:
            for port in ports:
                if setup.webhook:
                    env.update(
                        WEBHOOK_URL="https://bot.example/load",
                        WEBHOOK_SECRET=WEBHOOK_SECRET,
                        PORT=str(port),
                        LISTEN="127.0.0.1",
                    )
                processes.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable,
                        *command,
                        *(["--webhook"] if setup.webhook else []),
                        cwd=root,
                        env=env,
                    )
                )
            if setup.webhook:
                for port, process in zip(ports, processes, strict=True):
                    await _wait_serving(port, process)
                api.webhook_targets = [f"http://127.0.0.1:{port}/load" for port in ports]
            else:
                await api.wait_request("getUpdates", timeout=60)
            yield processes
        finally:
            for process in processes:
                if process.returncode is None:
                    process.terminate()
            for process in processes:
                await process.wait()


async def measure(
    kind: str, chats: int, taps: int, folder: Path, database_url: str | None = None
) -> Result:
    # Throughput at saturation: no flood limits (benchmarks.pace plays at Telegram's pace).
    async with (
        FakeBotApi(flood=None) as api,
        serving(api, kind, folder, database_url) as processes,
    ):
        return await _drive(api, SETUPS[kind].floor, chats, taps, processes)


async def open_boards(
    api: FakeBotApi, chats: range, command: str = "/start"
) -> dict[int, tuple[int, str]]:
    """Each chat's user sends `command`: their board's message id and callback data prefix."""
    boards: dict[int, tuple[int, str]] = {}
    for chat in chats:
        api.add_user(chat, f"Player {chat}")
        mark = api.mark()
        api.send_text(chat, chat, command)
        sent = await api.wait_for(
            lambda r, c=chat: (
                r.method == "sendMessage"
                and r.params.get("chat_id") == c
                and "reply_markup" in r.params
                and not _first_button(r.params).startswith("daily:")
            ),
            after=mark,
            timeout=30,
        )
        boards[chat] = (sent.result["message_id"], _first_button(sent.params).rsplit(":", 1)[0])
    return boards


def _first_button(params: dict) -> str:
    """The callback data of a message's first button: the welcome's opens the daily
    ("daily:…"), which tells it apart from the board after it (the bare bot's too)."""
    keyboard = params.get("reply_markup", {}).get("inline_keyboard") or [[{}]]
    return keyboard[0][0].get("callback_data", "")


async def _drive(
    api: FakeBotApi,
    floor: bool,
    chats: int,
    taps: int,
    processes: list[asyncio.subprocess.Process],
) -> Result:
    boards = await open_boards(api, range(1, chats + 1))
    rng = random.Random(1)
    mark, begin = api.mark(), time.time()
    sent_at: dict[str, tuple[int, float]] = {}
    for _ in range(taps):
        for chat, (message_id, prefix) in boards.items():
            data = "tap" if floor else f"{prefix}:{rng.choice('lurd')}"
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
    peak = max(_peak_kib(process.pid) for process in processes)
    return Result(len(sent_at), seconds, latencies, peak)


def _compare_backends(args: argparse.Namespace, names: list[str]) -> None:
    unknown = [name for name in names if name not in SETUPS]
    if unknown:
        raise SystemExit(f"unknown --backends {unknown}; choose from {', '.join(SETUPS)}")
    url = (
        args.database_url
        or os.environ.get("DATABASE_URL", "").strip()
        or os.environ.get("TEST_DATABASE_URL", "").strip()
        or None
    )
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            results[name] = asyncio.run(measure(name, args.chats, args.taps, Path(folder), url))
    print(f"{args.chats} chats x {args.taps} taps, all sent at once")
    for name, result in results.items():
        print(result.line(name))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=200)
    parser.add_argument("--taps", type=int, default=50)
    parser.add_argument(
        "--backends",
        help=f"compare deployments instead, comma-separated: {', '.join(SETUPS)}",
    )
    parser.add_argument("--database-url", help="the PostgreSQL server for the postgres runs")
    parser.add_argument("--floor", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        run_floor()
        return
    if args.backends:
        _compare_backends(args, [name.strip() for name in args.backends.split(",")])
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
