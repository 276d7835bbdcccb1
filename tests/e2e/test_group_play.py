"""Groups, end to end: /share and /replay find a player's games, each challenge's end says
which card it ends, and a private challenge board says that its challenge is over."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

import engine
from bot.emulator import StoredMessage
from tests.support.boards import buttons, moving_code, shown_board
from tests.support.databases import execute_sql, stored_game
from tests.support.harness import User

pytestmark = pytest.mark.usefixtures("no_errors_logged")

GROUP = -100300400
ARROW = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}


async def _challenge(api, user: User, args: str = "") -> StoredMessage:
    api.send_text(user.id, GROUP, f"/challenge {args}".strip())
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    return api.stored_message(GROUP, sent.result["message_id"])


async def _enter(api, user: User, card: StoredMessage) -> StoredMessage:
    """Follow the card's ▶️ link and make one move on the challenge board."""
    link = next(url for url in buttons(card).values() if "start=" in url)
    board = await user.open_board(f"/start {link.split('start=')[1]}")
    shown = replace(engine.new_game(4, 0, 0.0), board=shown_board(board.text))
    _, board = await user.tap(board, ARROW[moving_code(shown)])
    return board


async def _end_now(database) -> None:
    soon = time.time() + 0.5
    await execute_sql(database, "UPDATE challenges SET ends_at = ? WHERE finished = 0", soon)
    await execute_sql(database, "UPDATE games SET closes_at = ? WHERE challenge_id > 0", soon)


async def test_share_and_replay_in_a_group_show_the_players_challenge_game(api, bot):
    anna, lena = User(api, 101, "Anna"), User(api, 303, "Lena", "de")
    api.add_group(GROUP, "Club", admins={anna.id}, members={lena.id})
    card = await _challenge(api, anna)
    await _enter(api, lena, card)
    api.send_text(lena.id, GROUP, "/share")
    photo = await api.wait_request(("sendPhoto", "sendMessage"), chat_id=GROUP, timeout=15)
    assert photo.method == "sendPhoto", photo.params.get("text")
    api.send_text(lena.id, GROUP, "/replay")
    await api.wait_request("sendAnimation", chat_id=GROUP, timeout=30)


async def test_share_in_a_group_shows_a_private_game_when_there_is_none_here(api, bot):
    anna = User(api, 101, "Anna")
    api.add_group(GROUP, "Club", admins={anna.id})
    board = await anna.open_board()
    await anna.tap(board, ARROW[moving_code(await stored_game(bot.database, 101, 101))])
    api.send_text(anna.id, GROUP, "/share")
    photo = await api.wait_request(("sendPhoto", "sendMessage"), chat_id=GROUP, timeout=15)
    assert photo.method == "sendPhoto", photo.params.get("text")


async def test_challenges_ending_together_each_answer_their_own_card(api, bot):
    anna = User(api, 101, "Anna")
    api.add_group(GROUP, "Club", admins={anna.id})
    first = await _challenge(api, anna, "4 1h")
    second = await _challenge(api, anna, "5 1h")
    await bot.stop()
    await _end_now(bot.database)
    await bot.start()
    ends = [await api.wait_request("sendMessage", chat_id=GROUP, timeout=10) for _ in range(2)]
    replied = {
        api.stored_message(GROUP, end.result["message_id"]).reply_to: end.params["text"]
        for end in ends
    }
    assert "4×4" in replied[first.message_id] and "5×5" in replied[second.message_id]


async def test_a_private_challenge_board_says_that_its_challenge_has_ended(api, bot):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob", "nl")
    api.add_group(GROUP, "Club", admins={anna.id}, members={bob.id})
    card = await _challenge(api, anna)
    board = await _enter(api, bob, card)
    await _end_now(bot.database)
    await bot.restart()
    ended = await api.wait_request(
        "editMessageText", chat_id=bob.id, message_id=board.message_id, timeout=10
    )
    assert "🏁 Deze uitdaging is voorbij." in ended.params["text"]
    shown = api.stored_message(bob.id, board.message_id)
    assert not any(arrow in buttons(shown) for arrow in ARROW.values())
