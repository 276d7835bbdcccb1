"""Pictures wait in a queue of their own: hints and moves never wait for a replay."""

from __future__ import annotations

import pytest

from bot.services.workers import RENDERS_QUEUED
from tests.support.boards import button_data
from tests.support.databases import long_game, put_board
from tests.support.harness import RunningBot, User

CROWDED = "I’m drawing a lot of pictures right now. Try again in a minute."


@pytest.fixture
async def thinking_bot(api, database):
    """Hint workers warm from the start, and long searches: a hint takes a while."""
    running = RunningBot(api, database, hint_budget_ms=1500, hint_workers_at_start=True)
    await running.start()
    yield running
    await running.stop()


@pytest.mark.slow  # draws long replays
async def test_a_hint_never_waits_for_replays_and_a_full_queue_says_so_at_once(api, thinking_bot):
    bot = thinking_bot
    viewers = [User(api, 300 + n, f"Viewer {n}") for n in range(RENDERS_QUEUED + 1)]
    for n, viewer in enumerate(viewers):
        await long_game(bot.database, viewer.id, seed=n + 1)
    thinker = User(api, 101, "Thinker")
    board = await thinker.open_board()
    mark = api.mark()
    for viewer in viewers[:RENDERS_QUEUED]:
        api.send_text(viewer.id, viewer.id, "/replay")
        await api.wait_request("sendChatAction", after=mark, chat_id=viewer.id)

    (crowded,) = await viewers[-1].send("/replay")
    assert crowded == CROWDED
    query = api.tap(thinker.id, thinker.id, board.message_id, button_data(board, "💡"))
    hint = await api.wait_answer(query, timeout=30)
    assert hint["text"].startswith("💡 Try")
    answered = api.find_requests("answerCallbackQuery", callback_query_id=query)[0]
    # Every replay is still being drawn (or waiting) when the hint is given.
    videos = api.find_requests("sendAnimation", after=mark)
    assert all(video.index > answered.index for video in videos)
    for viewer in viewers[:RENDERS_QUEUED]:
        await api.wait_request("sendAnimation", after=mark, chat_id=viewer.id, timeout=120)


async def test_an_arrow_tap_does_not_wait_for_the_same_chats_hint(api, thinking_bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    busy = [[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 2, 4], [0, 0, 0, 2]]
    await put_board(thinking_bot.database, 101, 101, busy)
    hint = api.tap(101, 101, board.message_id, button_data(board, "💡"))
    arrow = api.tap(101, 101, board.message_id, button_data(board, "⬅️"))
    await api.wait_answer(hint, timeout=30)
    await api.wait_answer(arrow, timeout=30)
    (hint_answer,) = api.find_requests("answerCallbackQuery", callback_query_id=hint)
    (arrow_answer,) = api.find_requests("answerCallbackQuery", callback_query_id=arrow)
    assert arrow_answer.index < hint_answer.index
