"""Bursts, Telegram faults and hostile input: no lost move, no crash, nobody in another's game."""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import re
import time

import pytest

from bot.codecs import GAME_PATTERN, parse_game_tap
from bot.config import TELEGRAM_PACE
from bot.wiring import TAP_BURST, TAPS_PER_SECOND
from tests.support.boards import button_data, moving_code, replay, shown_board, shown_moves
from tests.support.databases import count_rows, put_board, stored_game
from tests.support.harness import User, eventually


async def test_fifty_taps_in_a_burst_equal_fifty_sequential_taps(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    start = await stored_game(bot.database, 101, 101)
    game_id = button_data(board, "⬅️").split(":")[1]
    rng = random.Random(7)
    codes = [rng.choice("lurd") for _ in range(50)]
    mark = api.mark()
    queries = [
        api.tap(101, 101, board.message_id, f"g:{game_id}:{code}", strict=False) for code in codes
    ]
    for query in queries:
        await api.wait_answer(query)
    expected = replay(start, codes)
    assert (await stored_game(bot.database, 101, 101)).board == expected.board
    await eventually(
        lambda: shown_moves(api.stored_message(101, board.message_id).text) == expected.moves
    )
    assert shown_board(api.stored_message(101, board.message_id).text) == expected.board
    edits = api.find_requests("editMessageText", after=mark, chat_id=101)
    assert 1 <= len(edits) < len(codes) // 2  # coalesced: far fewer edits than taps
    # Within the chat's pace: a burst, then one a second (the slack is the trip to Telegram).
    rate = TELEGRAM_PACE.private_per_second
    for (i, first), (j, last) in itertools.combinations(enumerate(edits), 2):
        assert j - i + 1 <= TELEGRAM_PACE.burst + (last.time - first.time + 0.1) * rate
    assert not [r for r in api.requests if r.error_code == 429]


async def test_a_tap_adds_no_row_of_its_own(api, bot):
    """A tap writes its game's row alone, which keeps the tap's key for a repeat (delivered
    again: tests/processes/test_redelivery.py): a million players' moves would otherwise be a
    hundred million rows a day to write and prune."""
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    rows = await count_rows(bot.database, "deliveries")
    arrows = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}
    for _ in range(5):
        code = moving_code(await stored_game(bot.database, 101, 101))
        _, board = await anna.tap(board, arrows[code])
    assert (await stored_game(bot.database, 101, 101)).moves == 5
    assert await count_rows(bot.database, "deliveries") == rows


async def test_moves_keep_being_saved_while_an_edit_waits_out_a_flood_limit(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    game = await put_board(bot.database, 101, 101, [[2, 2, 4, 4]] + [[0] * 4] * 3)
    game_id = button_data(board, "⬅️").split(":")[1]
    api.fail_next("editMessageText", error_code=429, retry_after=2)
    mark = api.mark()
    queries = []
    for step in range(3):
        code = moving_code(game)
        game = replay(game, code)
        queries.append(api.tap(101, 101, board.message_id, f"g:{game_id}:{code}"))
        if step == 0:  # the bot learns of the flood wait from this move's edit
            await api.wait_request("editMessageText", after=mark, ok=False, chat_id=101)
    for query in queries:
        await api.wait_answer(query)
    assert (await stored_game(bot.database, 101, 101)).board == game.board
    assert (await stored_game(bot.database, 101, 101)).moves == 3
    edit = await api.wait_request("editMessageText", after=mark, chat_id=101)
    refused = api.find_requests("editMessageText", after=mark, ok=False, chat_id=101)[0]
    assert edit.time - refused.time >= 1.9  # the bot waited out the flood wait
    # The taps were answered at once: none of them waited for the flood wait to be over.
    answers = api.find_requests("answerCallbackQuery", callback_query_id=queries.__contains__)
    assert len(answers) == 3 and all(answer.time < edit.time for answer in answers)
    await eventually(lambda: shown_moves(api.stored_message(101, board.message_id).text) == 3)


@pytest.mark.slow  # waits out a flood wait on every retry
async def test_flood_waits_on_every_retry_are_no_error_and_the_board_catches_up_by_itself(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    game = await put_board(bot.database, 101, 101, [[2, 2, 0, 0]] + [[0] * 4] * 3)
    game_id = button_data(board, "⬅️").split(":")[1]
    api.fail_next("editMessageText", error_code=429, retry_after=1, count=2)
    api.fail_next("answerCallbackQuery", error_code=429, retry_after=1, count=4)  # 3 retries
    api.tap(101, 101, board.message_id, f"g:{game_id}:l", strict=False)
    await eventually(lambda: len(api.find_requests("answerCallbackQuery", ok=False)) == 4)
    game = replay(game, "l")
    assert (await stored_game(bot.database, 101, 101)).board == game.board  # saved all the same
    # Each 429 halves the chat's pace for a while; the board gets there all the same.
    edit = await api.wait_request("editMessageText", chat_id=101)
    assert shown_board(edit.params["text"]) == game.board
    assert len(api.find_requests("editMessageText", ok=False)) == 2


async def test_a_flood_limit_in_one_chat_does_not_hold_up_another(api, bot):
    anna = User(api, 101, "Anna")
    bob = User(api, 202, "Bob")
    anna_board = await anna.open_board()
    bob_board = await bob.open_board()
    await put_board(bot.database, 101, 101, [[2, 2, 0, 0]] + [[0] * 4] * 3)
    await put_board(bot.database, 202, 202, [[2, 2, 0, 0]] + [[0] * 4] * 3)
    api.fail_next("editMessageText", error_code=429, retry_after=3)
    anna.api.tap(101, 101, anna_board.message_id, button_data(anna_board, "⬅️"))
    await api.wait_for(lambda r: r.method == "editMessageText" and not r.ok)
    mark = api.mark()
    api.tap(202, 202, bob_board.message_id, button_data(bob_board, "⬅️"))
    bob_edit = await api.wait_request("editMessageText", after=mark, chat_id=202)
    anna_edit = await api.wait_request("editMessageText", after=mark, chat_id=101)
    assert bob_edit.time < anna_edit.time  # Bob's board did not wait out Anna's flood limit


async def test_a_deleted_board_gets_a_fresh_message_and_keeps_working(api, bot):
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await put_board(bot.database, 101, 101, [[2, 2, 0, 0]] + [[0] * 4] * 3)
    api.fail_next("editMessageText", "Bad Request: message to edit not found")
    api.tap(101, 101, board.message_id, button_data(board, "⬅️"))
    fresh = await api.wait_request("sendMessage", chat_id=101)
    new_board = api.stored_message(101, fresh.result["message_id"])
    assert "1 move" in new_board.text
    _, new_board = await anna.tap(new_board, "↩️")
    assert "0 moves" in new_board.text


@pytest.mark.parametrize(
    ("method", "description", "code"),
    [
        (
            "answerCallbackQuery",
            "Bad Request: query is too old and response timeout expired or query ID is invalid",
            400,
        ),
        ("editMessageText", "Bad Gateway", 502),
        (
            "editMessageText",
            "Bad Request: message is not modified: specified new message content and reply "
            "markup are exactly the same as a current content and reply markup of the message",
            400,
        ),
        ("answerCallbackQuery", "Bad Gateway", 502),
    ],
)
async def test_telegram_errors_never_lose_the_move(api, bot, caplog, method, description, code):
    caplog.set_level(logging.INFO)  # how the bot took the fault: "not answered", "not redrawn"
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await put_board(bot.database, 101, 101, [[2, 2, 0, 0]] + [[0] * 4] * 3)
    # An answer lost on the way is sent once more: the fault is for both.
    lost_twice = method == "answerCallbackQuery" and code == 502
    api.fail_next(method, description, error_code=code, count=2 if lost_twice else 1)
    mark = api.mark()
    api.tap(101, 101, board.message_id, button_data(board, "⬅️"))
    await api.wait_for(lambda r: r.method == method and not r.ok, after=mark)
    assert (await stored_game(bot.database, 101, 101)).moves == 1

    def handled() -> bool:
        return any(
            r.name.startswith("bot.")
            and r.levelno < logging.ERROR
            and ("not answered" in r.getMessage() or "not redrawn" in r.getMessage())
            for r in caplog.records
        )

    if "not modified" not in description:  # an edit that changes nothing is no event at all
        await eventually(handled)
    await anna.tap(anna.board(), "↩️", edit=False)  # the game goes on
    await eventually(lambda: "0 moves" in anna.board().text)  # behind the move's own edit


@pytest.mark.parametrize("lost", ["timed out", "bad gateway"])
async def test_a_taps_answer_lost_on_the_way_is_sent_once_more(api, bot, lost):
    """Telegram answered the answer too late for the bot's wait (or not at all): the button
    would spin on and the toast be lost, so the bot sends it again; the move is made once."""
    anna = User(api, 101, "Anna")
    board = await anna.open_board()
    await put_board(bot.database, 101, 101, [[2, 2, 0, 0]] + [[0] * 4] * 3)
    held = None
    if lost == "timed out":
        held = api.hold_next("answerCallbackQuery")
    else:
        api.fail_next("answerCallbackQuery", "Bad Gateway", error_code=502)
    mark = api.mark()
    query = api.tap(101, 101, board.message_id, button_data(board, "⬅️"))
    await api.wait_answer(query)
    if held is not None:  # the first comes in at last, and is refused as answered already
        held.release()
        await api.wait_for(lambda r: r.method == "answerCallbackQuery" and not r.ok, after=mark)
    # In the order Telegram finished them: a held first one finishes last.
    finished = [False, True] if held is None else [True, False]
    attempts = api.find_requests("answerCallbackQuery", callback_query_id=query)
    assert [r.ok for r in attempts] == finished
    assert (await stored_game(bot.database, 101, 101)).moves == 1


@pytest.mark.errors_expected
async def test_an_unexpected_failure_is_logged_with_context_and_the_player_gets_an_apology(
    api, bot, caplog
):
    caplog.set_level(logging.INFO)
    anna = User(api, 101, "Anna", "de")
    await anna.send("/language")
    await anna.tap(anna.board(), "Nederlands")  # her choice wins over Telegram's German
    mark = api.mark()
    api.fail_next("sendMessage", "Bad Request: something nobody expected")
    api.send_text(101, 101, "/rules")
    apology = await api.wait_request("sendMessage", chat_id=101, after=mark)
    assert apology.params["text"].startswith("Sorry, er ging bij mij iets mis")
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "/rules" in errors[0].getMessage()
    assert "Traceback" not in apology.params["text"]
    del anna


@pytest.mark.slow  # taps at a script's and a player's pace
async def test_a_script_is_throttled_but_a_fast_player_never_is(api, bot):
    fast = User(api, 101, "Fast")
    script = User(api, 202, "Script", "de")
    await script.send("/language")
    await script.tap(script.board(), "Nederlands")  # toasts follow the choice, not Telegram
    fast_board = await fast.open_board()
    script_board = await script.open_board()
    script_game = button_data(script_board, "⬅️").split(":")[1]
    began = time.time()  # the emulator's clock, on which it records every request
    flood = [
        api.tap(202, 202, script_board.message_id, f"g:{script_game}:{'lurd'[i % 4]}", strict=False)
        for i in range(400)
    ]
    fast_game = button_data(fast_board, "⬅️").split(":")[1]
    for i in range(30):  # a very fast human: ten taps a second for three seconds
        query = api.tap(
            101, 101, fast_board.message_id, f"g:{fast_game}:{'lurd'[i % 4]}", strict=False
        )
        answer = await api.wait_answer(query)
        assert not (answer["text"] or "").startswith("Whoa, too fast")
        await asyncio.sleep(0.1)
    answers = [await api.wait_answer(q) for q in flood]
    throttled = sum(1 for a in answers if (a["text"] or "").startswith("Rustig aan"))
    # The script gets the burst, then the rate for as long as its taps took to handle (on a
    # busy machine that is longer, and more of them may pass): never more.
    script_answers = api.find_requests(
        "answerCallbackQuery", callback_query_id=set(flood).__contains__
    )
    handled = max(r.time for r in script_answers) - began
    assert 400 - throttled <= TAP_BURST + TAPS_PER_SECOND * handled + 1, (throttled, handled)
    moves = (await stored_game(bot.database, 202, 202)).moves
    assert moves <= 400 - throttled


ADVERSARIAL_DATA = [
    "",
    "g",
    "g:",
    "g::",
    "g:1",
    "g:1:",
    "g:1:l:",
    "g:0:l",
    "g:01:l",
    "g:-5:u",
    "g:1:L",
    "g:1:ll",
    "g:9" * 20,
    "g:99999999999999999999999:l",
    "g:1e3:l",
    "g: 1:l",
    "g:1 :l",
    "new:",
    "new:4:",
    "new:44",
    "new:x",
    "lang:",
    "lang:EN",
    "lang:xx",
    "cur:",
    "cur ",
    "<b>x</b>",
    "&amp;",
    "\u202e",
    "\x00",
    "🎉" * 16,
    "a" * 64,
    "%s%n",
    "{0}",
    "None",
]
ADVERSARIAL_TEXTS = [
    "/new 99999999999999999999999",
    "/new -4",
    "/new 4 5 6",
    "/new ４",
    "/challenge ∞",
    "/challenge 99999999999d",
    "/start " + "x" * 3000,
    "/start c1_" + "a" * 60,
    "/best @@@",
    "/language <b>",
    "/view now please",
    "/rules\u0000",
    "/help \u202e",
    "x" * 4096,
    "\u200b\u200b",
    "<script>alert(1)</script>",
    "&lt;b&gt;",
    "/",
    "/start@play2048_bot",
    "/new@play2048_bot 5",
    "/NEW",
    "/unknown_command_here",
]


@pytest.mark.no_flood_limits  # many posts in a row: the pace would only slow it down
@pytest.mark.slow  # 2,400 forged taps
async def test_fuzzed_buttons_and_texts_are_answered_and_change_no_game(api, bot):
    owner = User(api, 101, "Owner")
    owner_board = await owner.open_board()
    api.add_group(-500, "Fuzz Club", admins={101})
    group_board = await owner.open_board("/new 5", replies=1, chat_id=-500)
    owner_game_id = int(button_data(owner_board, "⬅️").split(":")[1])
    rng = random.Random(2048)
    attackers = [
        User(api, 900 + i, f"<b>{i}</b>&", rng.choice(["en", "nl", "de"])) for i in range(8)
    ]
    for attacker in attackers:
        await attacker.open_board()
    before = (await stored_game(bot.database, 101, 101), await stored_game(bot.database, -500, 101))
    taps = []
    for i in range(2400):
        attacker = attackers[i % len(attackers)]
        kind = rng.random()
        if kind < 0.3:
            data = rng.choice(ADVERSARIAL_DATA)
        elif kind < 0.55:
            data = f"g:{owner_game_id + rng.randint(-3, 3)}:{rng.choice('udlrzk')}"
        elif kind < 0.75:
            noise = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 64)))
            data = noise.decode("utf-8", "replace")[:32]
        else:
            data = f"g:{rng.getrandbits(rng.choice([8, 40, 64]))}:{rng.choice('udlrzkx')}"
        chat, message = rng.choice(
            [(attacker.id, attacker.board().message_id), (-500, group_board.message_id)]
        )
        taps.append((data, api.tap(attacker.id, chat, message, data, strict=False)))
        if i % 200 == 0:  # odd texts, mostly in private: a group only takes 20 posts a minute
            for text in ADVERSARIAL_TEXTS:
                api.send_text(attacker.id, attacker.id, text)
            api.send_text(attacker.id, -500, rng.choice(ADVERSARIAL_TEXTS))
    owner_games = {owner_game_id, owner_game_id + 1}
    for data, query in taps:
        answer = await api.wait_answer(query)
        forged = data is None or not re.fullmatch(GAME_PATTERN, data)
        if forged or parse_game_tap(data).game_id in owner_games:
            assert answer["text"], f"no clear answer for {data!r}"
    after = (await stored_game(bot.database, 101, 101), await stored_game(bot.database, -500, 101))
    assert after == before
    _, owner_board = await owner.tap(
        api.stored_message(101, owner_board.message_id), "⬅️", edit=False
    )
    assert (await stored_game(bot.database, 101, 101)).moves in (0, 1)  # still playable


async def test_the_application_keeps_nothing_per_user_once_their_updates_are_done(api, bot):
    """Memory may hold bounded caches, but nothing that grows with every user ever seen."""
    for user_id in range(500, 520):
        user = User(api, user_id, f"Player {user_id}")
        board = await user.open_board()
        await user.tap(board, "🆕", edit=False)
    application = bot.application
    assert not application.user_data and not application.chat_data
    # python-telegram-bot notes every update's chat and user for a persistence to save, and
    # only a persistence ever empties those notes: without one they grew forever.
    assert not application._chat_ids_to_be_updated_in_persistence
    assert not application._user_ids_to_be_updated_in_persistence
