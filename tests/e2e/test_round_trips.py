"""What a tap costs in round trips to PostgreSQL, from the tap to its board redrawn and checked.

The bot runs against the test server through a proxy that counts the round trips on every
connection. A database in another zone multiplies each by its distance: at 200 ms, three
round trips are 0.6 s (`benchmarks.tap_database` measures it).
"""

from __future__ import annotations

import engine
from bot.storage import open_storage
from bot.storage.postgres import UpdatesLock
from bot.wiring import HINT_BURST, HINTS_PER_SECOND
from tests.support.harness import RunningBot, User, eventually

ARROWS = {"left": "⬅️", "right": "➡️", "up": "⬆️", "down": "⬇️"}


async def test_a_tap_costs_three_round_trips_from_the_tap_to_its_board_checked(
    api, postgres, proxied, monkeypatch
):
    """The player and the game read in one statement, the move saved with the player's
    records and the redraw's send reserved in one, and the game read again after the edit
    (another process may have moved it meanwhile)."""
    proxy, url = proxied
    # Nothing else talks to the database meanwhile: no look at the lock, and no job's turn
    # (a job beside a tap would open a second connection, whose statements are new).
    monkeypatch.setattr(UpdatesLock, "WATCH_EVERY", 3600.0)
    bot = RunningBot(api, url)
    await bot.start()
    await bot.pause_jobs()
    direct = await open_storage(postgres)  # the test's own reads, not through the proxy
    try:
        pacer = bot.application.bot_data.runtime.pacer
        anna = User(api, 101, "Anna")
        board = await anna.open_board()
        costs = []
        for _ in range(8):
            await eventually(lambda: not pacer.busy(anna.id))  # the last redraw checked
            game = await direct.active_game(anna.id, anna.id)
            assert game is not None and game.message_id == board.message_id
            direction = next(d for d in engine.DIRECTIONS if engine.play(game.game, d, 0).changed)
            before = proxy.round_trips
            await anna.tap(board, ARROWS[direction])
            await eventually(lambda: not pacer.busy(anna.id))
            costs.append(proxy.round_trips - before)
            moved = await direct.game(game.id)
            assert moved is not None and moved.game.moves == game.game.moves + 1
        # The first tap prepares each statement on the connection it gets.
        assert costs[1:] == [3] * 7, costs
    finally:
        await direct.close()
        await bot.stop()


async def test_a_command_costs_no_round_trip_for_its_budget(api, postgres, proxied, monkeypatch):
    """/help: the sender read with their budget of messages spent (one statement, shared by
    every process), then what the command itself needs."""
    proxy, url = proxied
    monkeypatch.setattr(UpdatesLock, "WATCH_EVERY", 3600.0)
    bot = RunningBot(api, url)
    await bot.start()
    await bot.pause_jobs()
    try:
        pacer = bot.application.bot_data.runtime.pacer
        anna = User(api, 101, "Anna")
        costs = []
        for _ in range(4):
            await eventually(lambda: not pacer.busy(anna.id))
            before = proxy.round_trips
            await anna.send("/help")
            await eventually(lambda: not pacer.busy(anna.id))
            costs.append(proxy.round_trips - before)
        # The first prepares each statement on the connection it gets.
        assert costs[1:] == [5, 5, 5], costs
    finally:
        await bot.stop()


async def test_a_hint_costs_no_round_trip_for_its_throttle(api, postgres, proxied, monkeypatch):
    """💡 with the hints' budget spent (in another process, say): the tap's one statement
    spends the tap, reads the player with the game and finds no hint left, and the player
    is told so; the hints' throttle has no round trip of its own."""
    proxy, url = proxied
    monkeypatch.setattr(UpdatesLock, "WATCH_EVERY", 3600.0)
    bot = RunningBot(api, url)
    await bot.start()
    await bot.pause_jobs()
    direct = await open_storage(postgres)  # the test's own statements, not through the proxy
    try:
        pacer = bot.application.bot_data.runtime.pacer
        anna = User(api, 101, "Anna")
        board = await anna.open_board()
        hints = [("hint", anna.id, HINTS_PER_SECOND, HINT_BURST)]
        while await direct.spend_throttles(hints):
            pass
        costs = []
        for _ in range(3):
            await eventually(lambda: not pacer.busy(anna.id))
            before = proxy.round_trips
            toast, _ = await anna.tap(board, "💡", edit=False)
            assert toast["text"] == "Easy on the hints! Give me a moment to think."
            costs.append(proxy.round_trips - before)
        # The first prepares the statement on the connection it gets.
        assert costs[1:] == [1, 1], costs
    finally:
        await direct.close()
        await bot.stop()
