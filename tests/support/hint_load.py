"""Taps measured while other players wait for hints: a test's check, a benchmark's figures."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass

from bot.emulator import FakeBotApi
from tests.support.boards import button_data
from tests.support.databases import Database, put_board
from tests.support.harness import User


@dataclass(frozen=True)
class HintLoad:
    quiet: list[float]  # tap latencies in seconds, with no hint running
    busy: list[float]  # the same while six hint searches run
    worst_stall: float  # the longest time the event loop failed to wake a sleeper
    hints_asked: int
    hints_given: int


async def loop_stalls(stop: asyncio.Event) -> float:
    """The longest time the event loop (shared with the bot here) failed to wake us up."""
    loop = asyncio.get_running_loop()
    worst, last = 0.0, loop.time()
    while not stop.is_set():
        await asyncio.sleep(0.005)
        now = loop.time()
        worst, last = max(worst, now - last - 0.005), now
    return worst


async def taps_during_hints(api: FakeBotApi, database: Database, taps: int) -> HintLoad:
    """Tap latencies alone, then while six players wait for long hint searches."""
    tapper = User(api, 500, "Tapper")
    board = await tapper.open_board()
    game_id = button_data(board, "⬅️").split(":")[1]

    async def tap_latencies(count: int) -> list[float]:
        latencies = []
        for i in range(count):
            start = time.perf_counter()
            query = api.tap(
                500, 500, board.message_id, f"g:{game_id}:{'lrud'[i % 4]}", strict=False
            )
            await api.wait_answer(query)
            latencies.append(time.perf_counter() - start)
        return latencies

    quiet = await tap_latencies(taps)
    rng = random.Random(3)
    thinkers = []
    for i in range(6):
        thinker = User(api, 600 + i, f"Thinker {i}")
        their_board = await thinker.open_board()
        busy_board = [
            [rng.choice([0, 0, 0, 2, 4, 8, 16, 32, 64, 128]) for _ in range(4)] for _ in range(4)
        ]
        busy_board[0][0] = 256  # never a board without a move
        busy_board[3][3] = 0
        await put_board(database, thinker.id, thinker.id, busy_board)
        thinkers.append((thinker, their_board, button_data(their_board, "⬅️").split(":")[1]))
    hint_queries = []
    stop = asyncio.Event()
    stalls = asyncio.create_task(loop_stalls(stop))
    for thinker, their_board, their_game in thinkers:
        hint_queries.append(
            api.tap(
                thinker.id, thinker.id, their_board.message_id, f"g:{their_game}:h", strict=False
            )
        )
    busy = await tap_latencies(taps)
    hinted = [await api.wait_answer(q, timeout=30) for q in hint_queries]
    stop.set()
    worst_stall = await stalls
    given = sum(a["text"] is not None and a["text"].startswith("💡") for a in hinted)
    return HintLoad(quiet, busy, worst_stall, len(hint_queries), given)
