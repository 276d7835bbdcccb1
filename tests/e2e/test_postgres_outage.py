"""PostgreSQL under pressure: an outage or a full pool costs apologies, never tracebacks.

The bot runs against the test server through a TCP proxy the test can cut: the server going
away and coming back, as a bot process sees it.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.storage import StorageUnavailable, open_storage
from tests.support.harness import RunningBot, User, eventually

APOLOGY = "Sorry, something went wrong on my side. Please try again."
# The database going away is logged at ERROR, once: the operator must hear of it.
pytestmark = pytest.mark.errors_expected


@pytest.fixture
def log_lines(caplog):
    caplog.set_level(logging.INFO)

    def lines(text: str) -> list[logging.LogRecord]:
        return [r for r in caplog.records if text in r.getMessage()]

    return lines


@pytest.fixture
async def running(api, proxied):
    proxy, url = proxied
    bot = RunningBot(api, url, database_wait=1.0)
    await bot.start()
    yield proxy, bot
    await bot.stop()


async def board_linked(bot: RunningBot, user_id: int, message_id: int) -> None:
    """Wait until /start is done: its last step saves which message shows the board."""
    storage = bot.application.bot_data.runtime.storage
    while (game := await storage.active_game(user_id, user_id)) is None or (
        game.message_id != message_id
    ):
        await asyncio.sleep(0.01)


async def test_an_outage_is_one_line_each_way_and_an_apology_for_each_tap(
    api, running, caplog, log_lines
):
    proxy, bot = running
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await board_linked(bot, anna.id, board.message_id)
    proxy.cut()
    for label in ("⬅️", "➡️", "⬆️"):
        answer, _ = await anna.tap(board, label, edit=False)
        assert answer["text"] == APOLOGY
    proxy.restore()
    mark = api.mark()
    for label in ("⬅️", "➡️", "⬆️", "⬇️"):
        answer, _ = await anna.tap(board, label, edit=False)
        assert answer["text"] != APOLOGY
    await api.wait_request("editMessageText", after=mark, chat_id=anna.id)  # moves saved again

    assert len(log_lines("is unavailable")) == 1
    assert len(log_lines("is back")) == 1
    assert len(log_lines("not handled: database unavailable")) == 3
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info]
    assert not noisy, [r.getMessage() for r in noisy]  # no traceback for a known outage


async def test_a_tap_that_finds_every_connection_busy_gets_an_apology_soon(api, running, log_lines):
    _, bot = running
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await board_linked(bot, anna.id, board.message_id)
    pool = bot.application.bot_data.runtime.storage._pool
    held = [await pool.acquire() for _ in range(pool.get_max_size())]
    try:
        answer, _ = await anna.tap(board, "⬅️", edit=False)
        assert answer["text"] == APOLOGY
    finally:
        for connection in held:
            await pool.release(connection)
    answer, _ = await anna.tap(board, "➡️", edit=False)
    assert answer["text"] != APOLOGY
    (busy,) = log_lines("is unavailable")
    assert "no connection within 1 s" in busy.getMessage()
    assert len(log_lines("is back")) == 1


@pytest.mark.parametrize("cut", ["reset", "black hole"])
async def test_a_tap_in_an_outage_gets_an_apology_and_the_first_tap_after_it_plays(
    api, running, log_lines, cut
):
    """A black hole (connections kept open, their bytes swallowed) is told by a timeout alone:
    the tap still gets its apology, the chat's lock is let go, and the pool's connections,
    dead from the same cut, are not handed to the taps that follow the database's return."""
    proxy, bot = running
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await board_linked(bot, anna.id, board.message_id)
    moves = await bot.application.bot_data.runtime.storage.active_game(anna.id, anna.id)
    (proxy.cut if cut == "reset" else proxy.black_hole)()
    for label in ("⬅️", "➡️"):
        answer, _ = await anna.tap(board, label, edit=False)
        assert answer["text"] == APOLOGY
    proxy.restore()
    mark = api.mark()
    for label in ("⬆️", "⬇️", "⬅️"):
        answer, _ = await anna.tap(board, label, edit=False)
        assert answer["text"] != APOLOGY, label
    await api.wait_request("editMessageText", after=mark, chat_id=anna.id)
    game = await bot.application.bot_data.runtime.storage.active_game(anna.id, anna.id)
    assert game.actions != moves.actions  # the taps after the return were saved
    assert len(log_lines("is unavailable")) == 1
    assert len(log_lines("is back")) == 1
    # The updates lock's connection went the same way, and the lock is this process's again.
    lock = bot.process.updates_lock
    assert lock is not None
    await eventually(lambda: bool(log_lines("is held again")))
    assert not lock.lost.is_set(), lock.reason


async def test_a_ping_fails_in_its_time_when_the_database_stops_answering(proxied):
    """What a health check asks: an answer within its own time, or one line why not."""
    proxy, url = proxied
    storage = await open_storage(url, wait=30.0)  # far longer than the ping's own time
    try:
        await storage.ping(1.0)
        proxy.black_hole()
        with pytest.raises(StorageUnavailable, match="did not answer within 1 s"):
            await storage.ping(1.0)
        proxy.restore()
        await storage.ping(1.0)
    finally:
        await storage.close()
