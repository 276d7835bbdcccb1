"""Playing at Telegram's pace: a fast player among human ones, against Telegram's flood limits.

The bot runs as a real process (`python -m bot`, SQLite file) against the Bot API emulator
(which runs here) with Telegram's flood limits on: per chat a short burst, then one message
a second (20 a minute in groups), and a 429 flood wait for whoever goes past that. For each
rate, a fresh bot gets one player tapping arrows at that rate for `--seconds`, while
`--players` others tap at a human pace (a tap every 0.4-2 s) in their own chats; everyone
plays a 6×6 board, which random taps do not finish within a few minutes. Printed per rate:

    429s          flood waits the bot ran into, in any chat (target: 0)
    edits/s       board edits in the fast player's chat per second of play
    longest stale the longest time the fast player's board showed an older state than the
                  saved one: from a move's answer (the move is saved by then) to the first
                  edit showing it or a later move (target <= 1.5 s)
    final lag     from the last tap to the edit showing the final board (target <= 1.2 s)

Then tap-to-edit latency at one tap per 1.1 s in one chat, from the tap to the first edit that
shows it: the bot against a bare python-telegram-bot bot that answers each tap and edits its
message (load.py's floor), both at once with the same flood limits (target: the bot's median
<= 1.2x the floor's). `--latency-only bot` measures that alone, `--latency-only postgres` with
the bot on PostgreSQL (--database-url, as below), beside a third bare bot that commits one row
per tap to that database before its edit: what any bot that keeps each move there pays.

    .venv/bin/python -m benchmarks.pace [--seconds 60] [--players 50] [--rates 2,5,10]

`--processes 1,3` plays the fast player alone instead (6 taps a second, `--seconds` long)
against webhook processes sharing one PostgreSQL database, the emulator delivering the chat's
updates round-robin over them, as a load balancer would; printed for each count are the same
figures, which must not get worse with more processes (one pace per chat for all of them).
It needs a server: --database-url, else DATABASE_URL or TEST_DATABASE_URL.

    .venv/bin/python -m benchmarks.pace --processes 1,3 --seconds 20 \
        --database-url postgresql://postgres@127.0.0.1:54329/bot2048_test
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.load import SETUPS, open_boards, serving
from bot.emulator import TELEGRAM_LIMITS, FakeBotApi, RecordedRequest

FAST = 1  # the fast player's user id (and private chat id)
SETTLE = 15.0  # seconds to wait for the last edits after the last tap
MOVES = re.compile(r"(\d[\d,]*) moves?\b")  # "1,116 moves" on an English board
LATENCY_GAP = 1.1
LATENCY_TAPS = 50
PROCESSES_RATE = 6.0  # the fast player's taps per second against several processes


@dataclass(frozen=True)
class PaceResult:
    label: str  # the fast player's rate, or the number of processes
    rate: float
    flood_waits: int
    edits_per_second: float  # over the seconds of play
    longest_stale: float | None  # None: some move never reached the board
    final_lag: float | None

    def row(self) -> str:
        def seconds(value: float | None) -> str:
            return f"{value:.2f} s" if value is not None else f"> {SETTLE:.0f} s"

        return (
            f"| {self.label} | {self.flood_waits} | {self.edits_per_second:.2f} "
            f"| {seconds(self.longest_stale)} | {seconds(self.final_lag)} |"
        )


def moves_shown(edit: RecordedRequest) -> int:
    found = MOVES.search(str(edit.params.get("text", "")))
    if found is None:
        raise ValueError(f"no move count on the board: {edit.params.get('text')!r}")
    return int(re.sub(r"\D", "", found.group(1)))


async def _tap_at(
    api: FakeBotApi, chat: int, board: tuple[int, str], gaps: list[float], rng: random.Random
) -> list[tuple[str, float]]:
    """Tap random arrows in `chat`, one after each gap; the query ids and when they were sent."""
    message_id, prefix = board
    loop = asyncio.get_running_loop()
    due = loop.time()
    sent = []
    for gap in gaps:
        due += gap
        await asyncio.sleep(max(0.0, due - loop.time()))
        query = api.tap(chat, chat, message_id, f"{prefix}:{rng.choice('lurd')}", strict=False)
        sent.append((query, time.time()))  # the emulator logs time.time()
    return sent


async def _answered(api: FakeBotApi, queries: list[str]) -> None:
    while any(api.world.queries[q].answer is None for q in queries):
        await asyncio.sleep(0.05)


async def _settled(api: FakeBotApi, moves: int) -> None:
    """Until the fast player's board shows `moves` moves, or SETTLE seconds have passed."""
    deadline = time.monotonic() + SETTLE
    while time.monotonic() < deadline:
        board = api.last_bot_message(FAST)
        found = MOVES.search(board["text"]) if board else None
        if found and int(re.sub(r"\D", "", found.group(1))) >= moves:
            return
        await asyncio.sleep(0.05)


async def measure_pace(
    rate: float,
    seconds: float,
    players: int,
    folder: Path,
    processes: int = 0,
    database_url: str | None = None,
) -> PaceResult:
    """The fast player at `rate`; on the SQLite bot, or on `processes` webhook processes."""
    rng = random.Random(rate)
    kind = {0: "bot", 1: "postgres-webhook"}.get(processes, f"postgres-x{processes}")
    folder = folder / f"pace-{rate:g}-{kind}"
    folder.mkdir()
    async with (
        FakeBotApi(flood=TELEGRAM_LIMITS) as api,
        serving(api, kind, folder, database_url),
    ):
        boards = await open_boards(api, range(FAST, FAST + players + 1), "/new 6")
        shown = moves_shown(api.find_requests("sendMessage", chat_id=FAST)[-1])
        mark = api.mark()
        fast_gaps = [1 / rate] * round(rate * seconds)
        human_gaps = {chat: [] for chat in boards if chat != FAST}
        for gaps in human_gaps.values():
            while sum(gaps) < seconds:
                gaps.append(rng.uniform(0.4, 2.0))
        fast, *_ = await asyncio.gather(
            _tap_at(api, FAST, boards[FAST], fast_gaps, rng),
            *(_tap_at(api, chat, boards[chat], g, rng) for chat, g in human_gaps.items()),
        )
        await _answered(api, [query for query, _ in fast])
        answers = {
            r.params["callback_query_id"]: r
            for r in api.find_requests("answerCallbackQuery", after=mark)
        }
        moved = sorted(answers[q].time for q, _ in fast if not answers[q].params.get("text"))
        await _settled(api, shown + len(moved))
        edits = [
            (edit.time, moves_shown(edit))
            for edit in api.find_requests("editMessageText", after=mark, chat_id=FAST)
        ]
        flood_waits = sum(1 for r in api.requests[mark:] if r.error_code == 429)
    stale: list[float] = []
    for number, saved_at in enumerate(moved, start=shown + 1):
        showing = [when for when, moves in edits if moves >= number]
        stale.append(max(0.0, min(showing) - saved_at) if showing else float("inf"))
    final = edits[-1] if edits else None
    final_lag = None
    if final is not None and final[1] == shown + len(moved):
        final_lag = final[0] - fast[-1][1]
    longest = max(stale, default=0.0)
    return PaceResult(
        str(processes) if processes else f"{rate:g}",
        rate,
        flood_waits,
        len(edits) / seconds,
        longest if longest != float("inf") else None,
        final_lag,
    )


def _version(kind: str, edit: RecordedRequest) -> int:
    """What an edit shows: the bot's move count, or the floor's tap count ("tap 7")."""
    if SETUPS[kind].floor:
        return int(str(edit.params["text"]).split()[1])
    return moves_shown(edit)


async def measure_latency(
    kind: str, folder: Path, start: asyncio.Barrier, delay: float, database_url: str | None = None
) -> list[float]:
    """Seconds from each tap to the first edit showing it, one tap per 1.1 s.

    The bot and the floor run at once, so both meet the same load from whatever else runs on
    the machine; `delay` keeps their taps apart.
    """
    rng = random.Random(2)
    folder = folder / f"latency-{kind}"
    folder.mkdir()
    async with (
        FakeBotApi(flood=TELEGRAM_LIMITS) as api,
        serving(api, kind, folder, database_url),
    ):
        message_id, prefix = (await open_boards(api, range(FAST, FAST + 1)))[FAST]
        floor = SETUPS["sqlite" if kind == "bot" else kind].floor
        version = 0 if floor else moves_shown(api.find_requests("sendMessage")[-1])
        mark = api.mark()
        await start.wait()
        await asyncio.sleep(delay)
        sent = []
        for _ in range(LATENCY_TAPS):
            data = prefix if floor else f"{prefix}:{rng.choice('lurd')}"
            query = api.tap(FAST, FAST, message_id, data, strict=False)
            sent.append((query, time.time()))
            await asyncio.sleep(LATENCY_GAP)
        await _answered(api, [query for query, _ in sent])
        answers = {
            r.params["callback_query_id"]: r
            for r in api.find_requests("answerCallbackQuery", after=mark)
        }
        edits = [
            (r.time, _version(kind, r)) for r in api.find_requests("editMessageText", after=mark)
        ]
    latencies = []
    for query, when in sent:
        if answers[query].params.get("text"):
            continue  # nothing moved: no edit to wait for
        version += 1
        showing = [at for at, shown in edits if shown >= version]
        if showing:
            latencies.append(min(showing) - when)
    return latencies


async def compare_latency(
    folder: Path, backend: str = "bot", database_url: str | None = None
) -> dict[str, list[float]]:
    """The bot (`backend`: "bot" on SQLite, or "postgres") beside the bare bot, and on
    PostgreSQL beside the bare bot committing one row per tap too, all at once."""
    kinds = [backend, "floor"] + (["floor-postgres"] if backend == "postgres" else [])
    start = asyncio.Barrier(len(kinds))
    latencies = await asyncio.gather(
        *(
            measure_latency(kind, folder, start, LATENCY_GAP * n / len(kinds), database_url)
            for n, kind in enumerate(kinds)
        )
    )
    return dict(zip(kinds, latencies, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--players", type=int, default=50, help="others, at a human pace")
    parser.add_argument("--rates", default="2,5,10", help="the fast player's taps per second")
    parser.add_argument(
        "--processes", default="", help="webhook processes on one PostgreSQL database, e.g. 1,3"
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL") or os.environ.get("TEST_DATABASE_URL"),
    )
    parser.add_argument(
        "--latency-only",
        choices=["bot", "postgres"],
        help="only tap -> edit against the bare bot, the bot on SQLite (bot) or PostgreSQL",
    )
    args = parser.parse_args()
    if args.processes:
        _compare_processes(args)
        return
    if args.latency_only:
        with tempfile.TemporaryDirectory() as folder:
            latencies = asyncio.run(
                compare_latency(Path(folder), args.latency_only, args.database_url)
            )
        _print_latency(latencies)
        return
    rates = [float(rate) for rate in args.rates.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        paces = [
            asyncio.run(measure_pace(r, args.seconds, args.players, Path(folder))) for r in rates
        ]
        latencies = asyncio.run(compare_latency(Path(folder)))
    print(
        f"One player at each rate for {args.seconds:g} s, {args.players} others at a human pace, "
        "Telegram's flood limits on"
    )
    _table("taps/s", paces)
    _print_latency(latencies)


def _print_latency(latencies: dict[str, list[float]]) -> None:
    """Medians against the bare bot's; the committed floor's, when measured, says how much of
    the bot's is the one durable write a kept tap needs."""
    medians = {kind: statistics.median(values) * 1000 for kind, values in latencies.items()}
    bot = next(iter(medians.values()))
    print(
        f"tap -> edit at one tap per {LATENCY_GAP} s: bot median {bot:.1f} ms, "
        f"bare python-telegram-bot {medians['floor']:.1f} ms: "
        f"{bot / medians['floor']:.2f}x (target <= 1.2x)"
    )
    if "floor-postgres" in medians:
        committed = medians["floor-postgres"]
        print(
            f"bare python-telegram-bot committing one row per tap to PostgreSQL {committed:.1f} ms:"
            f" {committed / medians['floor']:.2f}x the bare bot; the bot {bot / committed:.2f}x it"
        )


def _compare_processes(args: argparse.Namespace) -> None:
    counts = [int(count) for count in args.processes.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        paces = [
            asyncio.run(
                measure_pace(
                    PROCESSES_RATE, args.seconds, 0, Path(folder), count, args.database_url
                )
            )
            for count in counts
        ]
    print(
        f"One player at {PROCESSES_RATE:g} taps/s for {args.seconds:g} s, the chat's updates "
        "round-robin over webhook processes on one PostgreSQL database, Telegram's flood limits on"
    )
    _table("processes", paces)


def _table(first: str, paces: list[PaceResult]) -> None:
    print(f"| {first} | 429s | edits/s | longest stale | final lag |")
    print("|---|---|---|---|---|")
    for pace in paces:
        print(pace.row())


if __name__ == "__main__":
    main()
