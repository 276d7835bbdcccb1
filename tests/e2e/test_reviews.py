"""The review of a game, end to end: 🔎 under the game-over board, one picture with the totals,
one review per player at a time, a full picture queue said at once, forged buttons refused,
and a running challenge's entry kept secret until the challenge ends."""

from __future__ import annotations

import asyncio

import pytest

from bot.emulator.api import WAIT_TIMEOUT
from bot.presentation import images, reviews
from bot.presentation.i18n import translator
from bot.services.workers import RENDERS_QUEUED
from engine.solver import review_game
from tests.support.boards import button_data, buttons, moving_code
from tests.support.databases import count_rows, one_move_from_over, stored_game
from tests.support.harness import User
from tests.support.pictures import decode_png

ARROWS = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}
GROUP = -100600700
REVIEW = {
    "en": "🔎 Review my game",
    "nl": "🔎 Analyseer mijn spel",
    "de": "🔎 Mein Spiel analysieren",
}


async def game_over_board(bot, user: User, seed: int):
    """The player's game played to its end through the bot: the final board, and the log."""
    codes = await one_move_from_over(bot.database, user.id, seed)
    board = await user.open_board()
    assert not any(label.startswith("🔎") for label in buttons(board))  # still playing
    _, over = await user.tap(board, ARROWS[codes[-1]])
    assert (await stored_game(bot.database, user.id, user.id)).over
    return over, codes


@pytest.mark.parametrize("language", ["en", "nl", "de"])
async def test_a_finished_game_offers_its_review_and_sends_one_picture_with_the_totals(
    api, bot, language
):
    anna = User(api, 101, "Anna", language)
    over, codes = await game_over_board(bot, anna, seed=5)
    t = translator(language)
    held = api.hold_next("sendPhoto")
    answer, _ = await anna.tap(over, REVIEW[language], edit=False)
    assert answer["text"] == reviews.started(t)
    await asyncio.wait_for(
        held.arrived.wait(), WAIT_TIMEOUT
    )  # made and drawn: the picture is on its way to the chat
    again, _ = await anna.tap(over, REVIEW[language], edit=False)
    assert again["text"] == reviews.on_its_way(t)
    held.release()
    sent = await api.wait_request("sendPhoto", chat_id=anna.id, timeout=60)
    expected = review_game(4, 5, codes)
    assert len(expected.costliest) == 3
    assert sent.params["caption"] == reviews.totals(t, expected)
    picture = decode_png(sent.params["photo"].data)
    assert picture.size == (
        images.WIDTH,
        images.REVIEW_HEADER + 3 * images.REVIEW_PANEL + images.REVIEW_FOOTER,
    )
    assert len(api.find_requests("sendPhoto", chat_id=anna.id)) == 1


async def test_review_of_the_last_finished_game_and_a_full_queue(api, bot):
    players = [User(api, 301 + n, f"Player {n}") for n in range(RENDERS_QUEUED + 1)]
    for n, player in enumerate(players):
        await game_over_board(bot, player, seed=20 + n)
    holds = [api.hold_next("sendPhoto") for _ in range(RENDERS_QUEUED)]
    for player in players[:RENDERS_QUEUED]:
        api.send_text(player.id, player.id, "/review")
    for held in holds:
        await asyncio.wait_for(held.arrived.wait(), WAIT_TIMEOUT)
    (crowded,) = await players[-1].send("/review")
    assert crowded == "I’m drawing a lot of pictures right now. Try again in a minute."
    mark = api.mark()
    for held in holds:
        held.release()
    for player in players[:RENDERS_QUEUED]:  # in any order
        sent = await api.wait_request("sendPhoto", after=mark, chat_id=player.id, timeout=60)
        assert "of your" in sent.params["caption"]

    # With a new game begun and moved, /review still finds the finished one, and sends it
    # again by the file id of the picture already made (saved once the upload is answered).
    async def saved() -> None:
        while await count_rows(bot.database, "shared_files") < RENDERS_QUEUED:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(saved(), timeout=30)
    first = players[0]
    board = await first.open_board("/new 4", replies=1)
    game = await stored_game(bot.database, first.id, first.id)
    await first.tap(board, ARROWS[moving_code(game)])
    api.send_text(first.id, first.id, "/review")
    await api.wait_request(
        "sendPhoto", chat_id=first.id, photo=lambda photo: isinstance(photo, str), timeout=60
    )


async def test_a_forged_review_button_is_refused_and_changes_nothing(api, bot):
    anna, carl = User(api, 101, "Anna"), User(api, 303, "Carl")
    over, _ = await game_over_board(bot, anna, seed=5)
    data = button_data(over, "🔎")
    board = await carl.open_board()
    mark = api.mark()
    answer, _ = await carl.tap_data(board, data, strict=False)
    assert (
        answer["text"] == "This button no longer works. Send /review for your last finished game."
    )
    # Anna's own button with a made-up action count: not on her board, refused the same.
    game_id = data.split(":")[1]
    answer, _ = await anna.tap_data(over, f"rv:{game_id}:1", strict=False)
    assert answer["text"].startswith("This button no longer works")
    await api.quiet(0.5)
    assert not api.find_requests("sendPhoto", after=mark)
    assert not api.find_requests("sendMessage", after=mark)
    assert await count_rows(bot.database, "shared_files") == 0


async def test_a_running_challenges_entry_is_not_reviewed(api, bot):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
    api.add_group(GROUP, "2048 Club", admins={anna.id})
    api.send_text(anna.id, GROUP, "/challenge 4 2h")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    payload = buttons(api.stored_message(GROUP, sent.result["message_id"]))["▶️ Play"]
    board = await bob.open_board(f"/start {payload.split('?start=')[1]}")
    for arrow in ARROWS.values():  # the first that moves
        answer, _ = await bob.tap(board, arrow, edit=False)
        if not answer.get("text"):
            break
    (refusal,) = await bob.send("/review")
    assert refusal.startswith(
        "This game is part of a running challenge. Send /review again once it ends ("
    )
    assert not any(label.startswith("🔎") for label in buttons(bob.board()))
