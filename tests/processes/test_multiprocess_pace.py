"""Three webhook processes, one PostgreSQL database, one fast player: one pace for the chat.

The emulator delivers the chat's updates round-robin over the processes (one at a time, as
Telegram does), with Telegram's flood limits on. Each process redraws the board after the
taps it handled, so together they would send three times the chat's pace; the chat's budget
in the database keeps them to one. How stale the board gets is a figure of
`benchmarks.pace --processes`; here, what the player sees: no flood wait, every tap applied
once and in order, and the board ending on the last move.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from tests.support.boards import button_data, replay, shown_board, shown_moves
from tests.support.databases import stored_game
from tests.support.harness import User, eventually
from tests.support.processes import WebhookProcess, start_all

TAPS_PER_SECOND = 6
SECONDS = 6  # the 20 s, shortened: the pace is the same from the fifth tap on


@pytest.fixture
async def processes(api, postgres):
    three = [WebhookProcess(api, postgres) for _ in range(3)]
    await start_all(three)
    api.webhook_targets = [p.url for p in three]
    yield postgres, three
    codes = await asyncio.gather(*(p.stop() for p in three))
    assert codes == [0, 0, 0], "a bot process did not stop cleanly"


async def test_a_fast_player_spread_over_three_processes_meets_no_flood_wait(api, processes):
    url, three = processes
    anna = User(api, 901, "Anna")
    board = await anna.open_board()
    start = await stored_game(url, anna.id, anna.id)
    game_id = button_data(board, "⬅️").split(":")[1]
    mark = api.mark()

    rng = random.Random(6)
    codes = [rng.choice("lurd") for _ in range(TAPS_PER_SECOND * SECONDS)]
    queries = []
    for code in codes:  # a thumb's rhythm: taps go out whatever the bot is doing
        data = f"g:{game_id}:{code}"
        queries.append(api.tap(anna.id, anna.id, board.message_id, data, strict=False))
        await asyncio.sleep(1 / TAPS_PER_SECOND)
    answers = [await api.wait_answer(query, timeout=60) for query in queries]

    expected = replay(start, codes)
    saved = await stored_game(url, anna.id, anna.id)
    assert (saved.board, saved.score, saved.moves) == (
        expected.board,
        expected.score,
        expected.moves,
    ), "the taps were not applied once each, in the order they were made"
    shown = lambda: api.stored_message(anna.id, board.message_id).text  # noqa: E731
    await eventually(lambda: shown_moves(shown()) == expected.moves, timeout=30)
    assert shown_board(shown()) == expected.board

    floods = [r.summary() for r in api.requests[mark:] if r.error_code == 429]
    assert floods == [], "the processes together went past the chat's pace"
    assert not [a["text"] for a in answers if "holding back" in (a.get("text") or "")]
    delivered = {d.target for d in api.webhook_deliveries[-len(queries) :] if d.ok}
    assert delivered == {p.url for p in three}, "the taps were not spread over the processes"
    edits = api.find_requests("editMessageText", after=mark, chat_id=anna.id, ok=True)
    assert len(edits) >= 2  # the board followed the game, not only its end
