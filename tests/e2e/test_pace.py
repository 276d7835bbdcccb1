"""Playing at Telegram's pace: the emulator enforces Telegram's flood limits, the bot meets none.

Telegram's flood waits last seconds to minutes; the forced ones here last a few seconds,
which shows the same behaviour (the emulator imposes whatever wait it is told to).
"""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from bot.config import TELEGRAM_PACE
from tests.support.boards import button_data, moving_code, replay, shown_board, shown_moves
from tests.support.databases import put_board, stored_game
from tests.support.group_flood import COMMANDS, taps_during_a_group_flood
from tests.support.harness import User, eventually

FLOOD_WAIT = 4


def flood_waits(api) -> list:
    return [r for r in api.requests if r.error_code == 429]


@pytest.mark.slow  # twenty seconds of taps at Telegram's pace
async def test_twenty_seconds_of_fast_taps_meet_no_flood_wait_and_end_on_the_right_board(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board("/new 6", replies=1)  # random taps do not end a 6×6 game
    start = await stored_game(bot.database, 101, 101)
    game_id = button_data(board, "⬅️").split(":")[1]
    rng = random.Random(20)
    codes = [rng.choice("lurd") for _ in range(200)]
    mark = api.mark()
    began = time.time()  # the emulator's clock, on which it records every request
    queries = []
    for code in codes:  # ten taps a second for twenty seconds
        queries.append(api.tap(101, 101, board.message_id, f"g:{game_id}:{code}", strict=False))
        await asyncio.sleep(0.1)
    for query in queries:
        await api.wait_answer(query)
    expected = replay(start, codes)
    await eventually(
        lambda: shown_moves(api.stored_message(101, board.message_id).text) == expected.moves
    )
    assert shown_board(api.stored_message(101, board.message_id).text) == expected.board
    assert flood_waits(api) == []
    edits = api.find_requests("editMessageText", after=mark, chat_id=101)
    # About one a second, not one a tap: the burst, then the pace for as long as it took.
    seconds = edits[-1].time - began
    pace = TELEGRAM_PACE
    assert len(edits) <= pace.burst + seconds * pace.private_per_second + 1, (len(edits), seconds)


@pytest.mark.slow  # waits out a flood wait
async def test_a_flood_wait_is_told_in_the_toasts_holds_back_no_other_chat_and_is_caught_up(
    api, bot
):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
    anna_board, bob_board = await anna.open_board(), await bob.open_board()
    anna_game = await put_board(
        bot.database, 101, 101, [[2, 2, 4, 4], [8, 8, 0, 0]] + [[0] * 4] * 2
    )
    bob_game = await put_board(bot.database, 202, 202, [[2, 2, 4, 4], [8, 8, 0, 0]] + [[0] * 4] * 2)
    anna_id = button_data(anna_board, "⬅️").split(":")[1]
    bob_id = button_data(bob_board, "⬅️").split(":")[1]
    api.flood.block(101, FLOOD_WAIT)  # Telegram holds Anna's chat back
    mark = api.mark()

    async def anna_moves() -> dict:
        nonlocal anna_game
        code = moving_code(anna_game)
        anna_game = replay(anna_game, code)
        query = api.tap(101, 101, anna_board.message_id, f"g:{anna_id}:{code}")
        return await api.wait_answer(query)

    first = await anna_moves()  # the bot learns of the wait from this move's edit
    assert first["text"] is None
    await api.wait_for(lambda r: r.error_code == 429, after=mark)
    for _ in range(2):
        toast = (await anna_moves())["text"]
        assert toast.startswith(f"Saved (score {anna_game.score:,}). Telegram is slowing down")
        # The number and its unit held together by a no-break space: "in 4\u00a0seconds".
        seconds = int(toast.split(" update in ")[1].split("\u00a0second")[0])
        assert 1 <= seconds <= FLOOD_WAIT
    bob_edits = []
    for _ in range(3):  # Bob plays on at full speed meanwhile
        code = moving_code(bob_game)
        bob_game = replay(bob_game, code)
        api.tap(202, 202, bob_board.message_id, f"g:{bob_id}:{code}")
        bob_edits.append(await api.wait_request("editMessageText", chat_id=202))
    assert shown_board(bob_edits[-1].params["text"]) == bob_game.board
    caught_up = await api.wait_request(
        "editMessageText", after=mark, chat_id=101, timeout=FLOOD_WAIT + 5
    )
    assert all(edit.time < caught_up.time for edit in bob_edits)
    assert shown_board(caught_up.params["text"]) == anna_game.board  # every move, in one edit
    assert shown_moves(caught_up.params["text"]) == 3
    assert len(flood_waits(api)) == 1  # the bot knocked once, then waited


@pytest.mark.slow  # a group's pace over 300 commands
async def test_three_hundred_commands_in_a_group_leave_it_paced_and_a_player_unhurried(api, bot):
    flood = await taps_during_a_group_flood(api)
    # The group gets its burst, then 20 a minute; its other replies wait their turn.
    assert 1 <= flood.group_posts <= TELEGRAM_PACE.burst + flood.seconds * 20 / 60 + 1
    assert flood_waits(api) == []
    # Every tap was answered while most of the group's replies still waited: taps never
    # queue behind a group. How fast they are answered is benchmarks.group_flood's figure.
    assert len(flood.waited) == 20 and flood.group_posts < COMMANDS // 2


async def test_shutdown_during_a_flood_wait_is_quick_and_loses_no_move(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    game = await put_board(bot.database, 101, 101, [[2, 2, 0, 0]] + [[0] * 4] * 3)
    game_id = button_data(board, "⬅️").split(":")[1]
    api.flood.block(101, 600)
    mark = api.mark()
    code = moving_code(game)
    await api.wait_answer(api.tap(101, 101, board.message_id, f"g:{game_id}:{code}"))
    await api.wait_for(lambda r: r.error_code == 429, after=mark)
    api.send_text(101, 101, "/help")  # a reply waits behind the flood wait too
    await api.wait_answer(api.tap(101, 101, board.message_id, f"g:{game_id}:{code}"))
    # Well before the flood wait of ten minutes is over, however busy the machine.
    await asyncio.wait_for(bot.stop(), 60)
    assert (await stored_game(bot.database, 101, 101)).board == replay(game, code * 2).board
