"""A real bot process killed mid-burst: nothing committed is lost, nothing shown is invented."""

from __future__ import annotations

import asyncio
import random
import sqlite3

import pytest

import engine
from bot.emulator.api import WAIT_TIMEOUT
from tests.support.boards import button_data, moving_code, replay, shown_board, shown_moves
from tests.support.databases import Database, stored_game
from tests.support.harness import User, eventually
from tests.support.processes import start_bot_process, stop_cleanly

ARROWS = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}


def assert_intact(database: Database) -> None:
    if not isinstance(database, str):  # PostgreSQL has no file to check
        with sqlite3.connect(database) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def prefix_reached(start: engine.Game, codes: str, game: engine.Game) -> int:
    """How many of the taps, applied in order, lead exactly to `game`."""

    def position(g: engine.Game) -> tuple:
        return g.board, g.score, g.moves, g.undos_left

    matches = [
        k for k in range(len(codes) + 1) if position(replay(start, codes[:k])) == position(game)
    ]
    assert matches, "the saved game is not the result of any prefix of the taps"
    return max(matches)


async def burst(api, anna: User, board, codes: str) -> list[str]:
    game_id = button_data(board, "⬅️").split(":")[1]
    return [
        api.tap(anna.id, anna.id, board.message_id, f"g:{game_id}:{code}", strict=False)
        for code in codes
    ]


def answered(api, queries: list[str]) -> int:
    return sum(1 for q in queries if api.world.queries[q].answer is not None)


async def burst_under_way(api, database, seed: int):
    """A bot process with Anna's board, in the middle of a burst of 55 taps on it."""
    process = await start_bot_process(api, database)
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    start = await stored_game(database, 101, 101)
    rng = random.Random(seed)
    codes = "".join(rng.choice("lurd") for _ in range(55))  # within the tap throttle burst
    queries = await burst(api, anna, board, codes)
    while answered(api, queries) < 15:
        await asyncio.sleep(0.005)
    return process, anna, board, start, codes, queries


# Killed with requests on their way: the emulator's server logs each one it lost half-read.
@pytest.mark.errors_expected
async def test_sigkill_mid_burst_loses_only_uncommitted_taps(api, database):
    process, anna, board, start, codes, queries = await burst_under_way(api, database, seed=9)
    process.kill()
    # The hint workers share the bot's stderr: it closes once they have noticed and left too.
    await asyncio.wait_for(process.stderr.read(), timeout=30)
    await process.wait()
    confirmed = answered(api, queries)

    assert_intact(database)
    saved = await stored_game(database, 101, 101)
    applied = prefix_reached(start, codes, saved)
    assert applied >= confirmed  # every answered tap had been committed first
    shown = api.stored_message(101, board.message_id).text
    states = [replay(start, codes[:k]) for k in range(applied + 1)]
    assert any(s.board == shown_board(shown) and s.moves == shown_moves(shown) for s in states), (
        "the board message shows a state the database never had"
    )

    process = await start_bot_process(api, database)  # every game continues after a restart
    try:
        _, board = await anna.tap(api.stored_message(101, board.message_id), "↩️")
        assert (
            await stored_game(database, 101, 101)
        ).moves == saved.moves - 1 or saved.undos_left == 0
    finally:
        process.terminate()
        await process.wait()


async def test_sigterm_mid_burst_finishes_in_flight_taps_and_closes_cleanly(api, database):
    process, _, board, start, codes, queries = await burst_under_way(api, database, seed=11)
    stderr = await stop_cleanly(process)
    assert " ERROR " not in stderr, stderr

    assert_intact(database)
    saved = await stored_game(database, 101, 101)
    applied = prefix_reached(start, codes, saved)
    assert applied >= answered(api, queries)
    shown = api.stored_message(101, board.message_id).text
    assert shown_board(shown) == saved.board and shown_moves(shown) == saved.moves


async def test_a_tap_delivered_again_after_a_kill_before_the_next_poll_moves_once(api, database):
    """Killed after committing a tap, before its next getUpdates confirmed it: Telegram hands
    the tap to the restarted bot again, which must not move the board a second time."""
    process = await start_bot_process(api, database)
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    start = await stored_game(database, 101, 101)
    code = moving_code(start)
    confirming = api.hold_next("getUpdates")  # the poll after the one that brings the tap
    query = api.tap(anna.id, anna.id, board.message_id, button_data(board, ARROWS[code]))
    await api.wait_answer(query)  # answered: the move is committed
    await asyncio.wait_for(confirming.arrived.wait(), timeout=WAIT_TIMEOUT)
    process.kill()
    await asyncio.wait_for(process.stderr.read(), timeout=30)
    await process.wait()
    assert [u["callback_query"]["id"] for u in api.pending_updates] == [query]

    process = await start_bot_process(api, database)
    try:
        await eventually(lambda: not api.pending_updates)  # delivered again
        shown = await anna.open_board()  # handled after the tap: chat order
        saved, once = await stored_game(database, 101, 101), replay(start, code)
        assert (saved.board, saved.moves, saved.score) == (once.board, once.moves, once.score)
        assert shown_board(shown.text) == once.board and shown_moves(shown.text) == 1
    finally:
        process.terminate()
        await process.wait()
        confirming.release()
