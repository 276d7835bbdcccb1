"""Showing games off, end to end: /share, the 📤 button, /replay, inline mode and duels; a
running challenge's tiles stay secret, so its entries are no duel until it ends.

The pictures the bot uploads are read back from the emulator and decoded: a card must show
the board the database holds, in the original colours; a replay must have one frame per
state plus the held card.
"""

from __future__ import annotations

import asyncio
import logging
import re

import pytest
from cachetools import TTLCache

import engine
from bot.codecs import duel_payload
from bot.emulator import FakeBotApi, Upload
from bot.models import StoredGame
from bot.presentation import images
from bot.presentation.i18n import translator
from bot.storage import open_storage
from bot.wiring import INLINE_ANSWER_SECONDS
from tests.support.boards import button_data, buttons, isolated, moving_code
from tests.support.bot_api_spec import check_calls
from tests.support.databases import count_rows, execute_sql, put_board, stored_game
from tests.support.groups import end_challenge_soon
from tests.support.harness import RunningBot, User, eventually
from tests.support.pictures import check_tiles, decode_png, decode_video

GROUP = -5001
CHALLENGE_GROUP = -100400500
REFUSAL = (
    "This game is part of a running challenge, so its tiles stay secret until the challenge "
    "ends. Share it after that."
)


@pytest.fixture
async def inline_api():
    async with FakeBotApi(inline_mode=True) as fake:
        yield fake
    check_calls(fake.requests)


@pytest.fixture
async def inline_bot(inline_api, database):
    running = RunningBot(inline_api, database)
    await running.start()
    yield running
    await running.stop()


async def play_moves(user: User, count: int) -> None:
    """Tap `count` moves that move, on the player's board, waiting for each redraw."""
    board = await user.open_board()
    for _ in range(count):
        game = await stored_game(user.api_database, user.id, user.id)
        await user.tap(board, {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}[moving_code(game)])


def tampered(payload: str) -> str:
    """The payload with its last character changed: never, by chance, the payload itself."""
    return payload[:-1] + ("y" if payload.endswith("x") else "x")


def play(bot: RunningBot, user: User) -> User:
    user.api_database = bot.database  # type: ignore[attr-defined]
    return user


async def test_share_sends_a_card_of_the_game_then_resends_it_by_file_id(api, bot):
    anna = play(bot, User(api, 101, "Anna"))
    await play_moves(anna, 3)
    game = await stored_game(bot.database, 101, 101)

    api.send_text(101, 101, "/share")
    sent = await api.wait_request("sendPhoto", chat_id=101)
    assert isinstance(sent.params["photo"], Upload)
    card = decode_png(sent.params["photo"].data)
    assert card.size == (images.WIDTH, images.HEIGHT)
    check_tiles(card, images.card_figures(game, 0, "Anna"))
    caption = sent.result["caption"]
    assert "Anna" in caption and "Classic 4×4" in caption
    link = button_data(api.stored_message(101, sent.result["message_id"]), "▶️")
    assert re.fullmatch(r"https://t\.me/play2048_bot\?start=d\d+_3_[a-z2-7]{8}", link)
    # Inline mode is off for this bot: no 📤, and a word on how to share the picture anyway.
    assert not any(
        label.startswith("📤")
        for label in buttons(api.stored_message(101, sent.result["message_id"]))
    )
    explained = await api.wait_request("sendMessage", chat_id=101)
    assert "forward it to any chat" in explained.params["text"]

    api.send_text(101, 101, "/share")
    again = await api.wait_request("sendPhoto", chat_id=101)
    assert again.params["photo"] == sent.result["photo"][-1]["file_id"]
    await bot.restart()
    api.send_text(101, 101, "/share")
    after_restart = await api.wait_request("sendPhoto", chat_id=101)
    assert after_restart.params["photo"] == sent.result["photo"][-1]["file_id"]


async def test_a_shared_card_names_its_player_inside_isolates(api, bot):
    mallory = play(bot, User(api, 101, "\u202eyrollam"))  # a right-to-left override first
    await play_moves(mallory, 1)
    api.send_text(101, 101, "/share")
    caption = (await api.wait_request("sendPhoto", chat_id=101)).result["caption"]
    assert isolated("yrollam") in caption and "\u202e" not in caption


async def test_share_without_a_game_says_how_to_start_one(api, bot):
    anna = User(api, 101, "Anna", "nl")
    (text,) = await anna.send("/share")
    assert "/new" in text
    assert not api.find_requests("sendPhoto")


async def test_share_before_the_first_move_asks_for_one(api, bot):
    """The board is on screen: /new would only bring another empty one."""
    anna = User(api, 101, "Anna")
    await anna.open_board()
    (text,) = await anna.send("/share")
    assert text == "Make a move first. There’s nothing to show yet."
    assert not api.find_requests("sendPhoto")


async def test_won_and_finished_boards_get_a_share_button_when_inline_mode_is_on(
    inline_api, inline_bot
):
    anna = play(inline_bot, User(inline_api, 101, "Anna"))
    board = await anna.open_board()
    assert not any(label.startswith("📤") for label in buttons(board))
    await put_board(inline_bot.database, 101, 101, [[1024, 1024, 0, 0]] + [[0] * 4] * 3)
    _, won = await anna.tap(board, "⬅️")
    game = await _latest(inline_bot.database, 101)
    assert buttons(won)["📤 Share"] == f"#{game.id}"  # switch_inline_query: pick any chat
    query_id = inline_api.switch_inline(101, 101, won.message_id, 101)
    answer = await inline_api.wait_inline_answer(query_id)
    assert answer["results"] and answer["is_personal"]


async def _latest(database, user_id: int) -> StoredGame:
    """The player's latest game in their private chat, with its id."""
    store = await open_storage(database)
    try:
        stored = await store.latest_game(user_id, user_id)
    finally:
        await store.close()
    assert stored is not None
    return stored


async def test_an_ended_challenge_boards_share_offers_the_challenge_game(inline_api, inline_bot):
    api = inline_api
    anna, bob = User(api, 101, "Anna"), play(inline_bot, User(api, 202, "Bob"))
    await play_moves(bob, 2)  # Bob's private game: his latest outside the challenge
    private = await _latest(inline_bot.database, bob.id)
    api.add_group(CHALLENGE_GROUP, "2048 Club", admins={anna.id}, members={bob.id})
    api.send_text(anna.id, CHALLENGE_GROUP, "/challenge 4 2h")
    sent = await api.wait_request("sendMessage", chat_id=CHALLENGE_GROUP)
    card = api.stored_message(CHALLENGE_GROUP, sent.result["message_id"])
    payload = buttons(card)["▶️ Play"].split("?start=")[1]
    board = await bob.open_board(f"/start {payload}")
    for arrow in ("⬅️", "➡️", "⬆️", "⬇️"):
        answer, _ = await bob.tap(board, arrow, edit=False)
        if not answer.get("text"):
            break
    await end_challenge_soon(inline_bot.database, 0.5)
    await inline_bot.restart()
    await api.wait_request(
        "editMessageText",
        chat_id=bob.id,
        message_id=board.message_id,
        reply_markup=lambda markup: "📤" in str(markup),
        timeout=30,
    )
    ended = api.stored_message(bob.id, board.message_id)
    entry = await _latest(inline_bot.database, bob.id)
    assert entry.challenge_id is not None and entry.id != private.id
    query_id = api.switch_inline(bob.id, bob.id, ended.message_id, CHALLENGE_GROUP)
    answer = await api.wait_inline_answer(query_id, timeout=30)
    offered = [result["id"] for result in answer["results"]]
    assert offered[0].startswith(f"duel-{entry.id}-")
    assert not any(result.startswith(f"duel-{private.id}-") for result in offered)
    # The same query typed by another player names a game that is not theirs: their own.
    other = await api.wait_inline_answer(api.inline_query(anna.id, anna.id, f"#{entry.id}"))
    assert not any(result["id"].startswith(f"duel-{entry.id}-") for result in other["results"])


async def test_replay_sends_the_whole_game_as_an_animation_once(api, bot):
    anna = play(bot, User(api, 101, "Anna"))
    await play_moves(anna, 6)
    game = await stored_game(bot.database, 101, 101)
    api.send_text(101, 101, "/replay")
    sent = await api.wait_request("sendAnimation", chat_id=101, timeout=30)
    video = sent.params["animation"]
    assert isinstance(video, Upload)
    frames, fps = decode_video(video.data)
    plan = images.replay_plan(6)
    assert len(frames) == 7 + plan.hold_frames and fps == plan.fps
    check_tiles(frames[-1], images.card_figures(game, 0, "Anna"), tolerance=8)
    assert sent.result["animation"]["width"] == images.WIDTH

    # Asked again once the first is done and its file id saved (a player's pictures are
    # drawn one at a time): sent again by that id.
    async def saved() -> None:
        while not await count_rows(bot.database, "shared_files"):
            await asyncio.sleep(0.05)

    await asyncio.wait_for(saved(), timeout=30)
    api.send_text(101, 101, "/replay")
    again = await api.wait_request("sendAnimation", chat_id=101, timeout=30)
    assert again.params["animation"] == sent.result["animation"]["file_id"]


async def test_replay_best_and_games_without_a_log(api, bot):
    anna = play(bot, User(api, 101, "Anna"))
    await play_moves(anna, 2)
    (text,) = await anna.send("/replay best 5")
    assert "5×5" in text
    (text,) = await anna.send("/replay sideways")
    assert "/replay best" in text
    api.send_text(101, 101, "/replay best")
    await api.wait_request("sendAnimation", chat_id=101, timeout=30)
    await put_board(bot.database, 101, 101, [[2, 2, 0, 0]] + [[0] * 4] * 3)
    (text,) = await anna.send("/replay")
    assert text == "This game is too old to replay."


async def test_a_duel_from_any_chat_gives_the_friend_the_same_game_and_both_the_result(
    inline_api, inline_bot
):
    api = inline_api
    anna = play(inline_bot, User(api, 101, "Anna"))
    ben = play(inline_bot, User(api, 202, "Ben", "de"))
    api.add_group(GROUP, "Friends", admins={101}, members={202})
    await play_moves(anna, 4)
    annas = await stored_game(inline_bot.database, 101, 101)

    query_id = api.inline_query(101, GROUP, "")
    answer = await api.wait_inline_answer(query_id)
    duel = next(r for r in answer["results"] if r["id"].startswith("duel-"))
    assert any(r["id"].startswith("best-4-") for r in answer["results"])
    # The card was uploaded through Anna's private chat and deleted there at once.
    assert not [m for m in api.messages(101) if "photo" in m]
    card = decode_png(api.file_bytes(duel["photo_file_id"]))
    check_tiles(card, images.card_figures(annas, 0, "Anna"))

    posted = api.choose_inline_result(query_id, duel["id"])
    assert posted["chat"]["id"] == GROUP and posted["via_bot"]["username"] == "play2048_bot"
    link = posted["reply_markup"]["inline_keyboard"][0][0]["url"]
    payload = link.split("start=")[1]

    api.send_text(202, 202, f"/start {payload}")
    intro = await api.wait_request("sendMessage", chat_id=202)
    assert "Anna" in intro.params["text"]
    await api.wait_request("sendMessage", chat_id=202)
    bens = await stored_game(inline_bot.database, 202, 202)
    assert bens.seed == annas.seed and bens.board == engine.new_game(4, annas.seed, 0).board

    (own,) = await anna.send(f"/start {payload}")
    assert "your own game" in own
    (broken,) = await anna.send(f"/start {tampered(payload)}")
    assert broken == "This link no longer works. Ask your friend to share their game again."

    # After ⬅️ the one empty cell is boxed in by 16 and 32: over whether a 2 or a 4 comes.
    lost = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 32], [4, 2, 8, 8]]
    await put_board(inline_bot.database, 202, 202, lost, score=16)
    board = ben.board()
    before = api.mark()
    await ben.tap(board, "⬅️")
    result = {"after": before, "timeout": 10}
    to_ben = await api.wait_request(
        "sendMessage", chat_id=202, text=lambda t: "Anna" in t, **result
    )
    to_anna = await api.wait_request(
        "sendMessage", chat_id=101, text=lambda t: "Ben" in t, **result
    )
    assert "32" in to_ben.params["text"] and str(annas.score) in to_anna.params["text"]
    # Each reads the other's name and is "you" themselves.
    assert "Ben" not in to_ben.params["text"] and "Anna" not in to_anna.params["text"]


async def test_inline_results_for_someone_who_never_started_the_bot(inline_api, inline_bot):
    inline_api.add_user(303, "Cleo")
    query_id = inline_api.inline_query(303, 303, "")
    answer = await inline_api.wait_inline_answer(query_id)
    assert answer["results"] == []
    assert answer["button"]["start_parameter"] == "inline"


async def test_a_refused_file_id_is_forgotten_and_the_card_uploaded_again(inline_api, inline_bot):
    api = inline_api
    anna = play(inline_bot, User(api, 101, "Anna"))
    await play_moves(anna, 2)
    first = await api.wait_inline_answer(api.inline_query(101, 101, ""), timeout=30)
    assert first["results"]
    # A row poisoned, or a database moved over from another bot: Telegram knows no such file.
    assert await execute_sql(inline_bot.database, "UPDATE shared_files SET file_id = 'AgAD-gone'")

    for text in ("", "again"):  # each later query is answered with cards that work
        answer = await api.wait_inline_answer(api.inline_query(101, 101, text), timeout=30)
        assert len(answer["results"]) == len(first["results"])
        for result in answer["results"]:
            decode_png(api.file_bytes(result["photo_file_id"]))
    assert await count_rows(inline_bot.database, "shared_files", "file_id = 'AgAD-gone'") == 0


async def test_a_flood_of_inline_queries_is_mostly_dropped_and_others_are_served(
    inline_api, inline_bot, caplog
):
    api = inline_api
    anna = play(inline_bot, User(api, 101, "Anna"))
    User(api, 202, "Ben")
    await play_moves(anna, 1)
    caplog.set_level(logging.DEBUG, logger="bot.handlers.throttling")
    flood = [api.inline_query(101, 101, f"q{n}") for n in range(300)]
    ben_answer = await api.wait_inline_answer(api.inline_query(202, 202, ""), timeout=30)
    assert ben_answer["button"]["start_parameter"] == "inline"

    def answered() -> int:
        return sum(api.world.inline_queries[q].answer is not None for q in flood)

    def dropped() -> int:
        return sum("dropped: over its budget" in r.getMessage() for r in caplog.records)

    await eventually(lambda: answered() + dropped() == len(flood), timeout=60)
    assert answered() <= len(flood) // 3  # a burst, then one a second


async def test_an_inline_answer_is_kept_a_few_seconds_per_player_and_query(inline_api, inline_bot):
    api = inline_api
    anna = play(inline_bot, User(api, 101, "Anna"))
    await play_moves(anna, 1)
    now = [0.0]
    runtime = inline_bot.application.bot_data.runtime
    runtime.inline_answers = TTLCache(100, ttl=INLINE_ANSWER_SECONDS, timer=lambda: now[0])

    def duel_ids(answer: dict) -> list[str]:
        return [r["id"] for r in answer["results"] if r["id"].startswith("duel-")]

    first = await api.wait_inline_answer(api.inline_query(101, 101, ""), timeout=30)
    assert first["cache_time"] == INLINE_ANSWER_SECONDS and first["is_personal"]
    game = await stored_game(inline_bot.database, 101, 101)
    await anna.tap(anna.board(), {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}[moving_code(game)])
    again = await api.wait_inline_answer(api.inline_query(101, 101, ""), timeout=30)
    assert duel_ids(again) == duel_ids(first)  # the same answer, not read and drawn again
    other = await api.wait_inline_answer(api.inline_query(101, 101, "x"), timeout=30)
    assert duel_ids(other) != duel_ids(first)  # another query is answered afresh
    now[0] += INLINE_ANSWER_SECONDS + 1
    later = await api.wait_inline_answer(api.inline_query(101, 101, ""), timeout=30)
    assert duel_ids(later) == duel_ids(other)  # the card of the game as it is now


@pytest.mark.parametrize(
    ("name", "drawn"),
    [("\u202eevil", "evil"), ("Eve\u202e 123", "Eve 123"), ("\u3164\u200b", "Player 101")],
)
async def test_a_card_draws_the_name_the_texts_show(api, bot, name, drawn):
    anna = play(bot, User(api, 101, name))
    await play_moves(anna, 1)
    game = await stored_game(bot.database, 101, 101)
    api.send_text(101, 101, "/share")
    sent = await api.wait_request("sendPhoto", chat_id=101, timeout=30)
    card = decode_png(sent.params["photo"].data)
    expected = decode_png(
        images.card_png(translator("en"), images.card_figures(game, game.score, drawn))
    )
    assert card.tobytes() == expected.tobytes()


async def test_a_running_challenge_entry_is_no_duel_until_the_challenge_ends(api, bot):
    anna, bob, carl = User(api, 101, "Anna"), User(api, 202, "Bob"), User(api, 303, "Carl")
    api.add_group(CHALLENGE_GROUP, "2048 Club", admins={anna.id})
    api.send_text(anna.id, CHALLENGE_GROUP, "/challenge 4 2h")
    sent = await api.wait_request("sendMessage", chat_id=CHALLENGE_GROUP)
    card_id = sent.result["message_id"]
    payload = buttons(api.stored_message(CHALLENGE_GROUP, card_id))["▶️ Play"].split("?start=")[1]
    board = await bob.open_board(f"/start {payload}")
    for arrow in ("⬅️", "➡️", "⬆️", "⬇️"):  # the first that moves: a game with no move has no card
        answer, _ = await bob.tap(board, arrow, edit=False)
        if not answer.get("text"):
            break

    # /share shows the entry's picture, but with no duel on it.
    mark = api.mark()
    api.send_text(bob.id, bob.id, "/share")
    photo = await api.wait_request("sendPhoto", after=mark, chat_id=bob.id)
    shown = api.stored_message(bob.id, photo.result["message_id"])
    assert not any(label.startswith("▶️") for label in buttons(shown))
    assert "?start=d" not in str(photo.params.get("reply_markup"))

    # A duel link on the entry, as the bot gave them before it refused: refused as well.
    store = await open_storage(bot.database)
    try:
        entry = await store.latest_game(bob.id, bob.id)
    finally:
        await store.close()
    assert entry is not None and entry.challenge_id is not None
    (refusal,) = await carl.send(f"/start {duel_payload(entry)}")
    assert refusal == REFUSAL
    assert (
        await execute_sql(bot.database, "UPDATE games SET active = active WHERE owner_id = 303")
        == 0
    )

    await end_challenge_soon(bot.database, 0.5)
    await bot.restart()  # the end is scheduled from the database
    await api.wait_request(
        "editMessageText",
        chat_id=CHALLENGE_GROUP,
        message_id=card_id,
        text=lambda text: "Final standings" in text,
        timeout=10,
    )
    api.send_text(bob.id, bob.id, "/share")
    card = await api.wait_request("sendPhoto", chat_id=bob.id, timeout=10)
    link = button_data(api.stored_message(bob.id, card.result["message_id"]), "▶️")
    assert "?start=d" in link
