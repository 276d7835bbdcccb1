"""Playing in groups, end to end: a board belongs to whoever started it, admins choose the
group's language, a group upgraded to a supergroup takes everything along, /share and /replay
find a player's games, and each challenge's end answers its own card."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest

import engine
from bot.emulator import StoredMessage
from bot.emulator.api import WAIT_TIMEOUT
from bot.presentation.render import tile_emoji
from bot.wiring import GROUP_MESSAGE_BURST, GROUP_MESSAGES_PER_SECOND
from tests.support.boards import buttons, grid, isolated, moving_code, shown_board
from tests.support.databases import execute_sql, put_board, stored_game
from tests.support.groups import BASIC, GROUP, SUPER, challenge_with_bob, end_challenge_soon
from tests.support.harness import User

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
    await end_challenge_soon(bot.database, 0.5)
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
    await end_challenge_soon(bot.database, 0.5)
    await bot.restart()
    ended = await api.wait_request(
        "editMessageText", chat_id=bob.id, message_id=board.message_id, timeout=10
    )
    assert "🏁 Deze uitdaging is voorbij." in ended.params["text"]
    shown = api.stored_message(bob.id, board.message_id)
    assert not any(arrow in buttons(shown) for arrow in ARROW.values())


async def test_boards_in_a_group_belong_to_whoever_started_them(api, bot, club):
    anna, bob = club
    anna_board = await anna.open_board("/new 4", replies=1, chat_id=GROUP)
    assert anna_board.chat_id == GROUP and f"{isolated('Anna')}’s game" in anna_board.text
    before = await stored_game(bot.database, GROUP, anna.id)
    answer, _ = await bob.tap(anna_board, "⬅️", edit=False)
    assert (
        answer["text"]
        == f"Dit is het spel van {isolated('Anna')}. Met /new start je je eigen spel."
    )
    assert await stored_game(bot.database, GROUP, anna.id) == before

    bob_board = await bob.open_board("/new 5", replies=1, chat_id=GROUP)
    assert "Bob" in bob_board.text and len(grid(bob_board)) == 5
    await put_board(bot.database, GROUP, anna.id, [[2, 2, 0, 0]] + [[0] * 4] * 3)
    _, anna_board = await anna.tap(anna_board, "⬅️")
    assert grid(anna_board)[0].startswith(tile_emoji(4))
    for arrow in ("⬅️", "➡️"):
        before_bob = api.mark()
        answer, _ = await bob.tap(bob_board, arrow, edit=False)
        if answer["text"] is None:
            await api.wait_request("editMessageText", after=before_bob, chat_id=GROUP)
            break
    assert (await stored_game(bot.database, GROUP, bob.id)).moves == 1
    assert (await stored_game(bot.database, GROUP, anna.id)).moves == 1


async def test_the_bot_ignores_chatter_and_unknown_commands_in_groups(api, bot, club):
    anna, _ = club
    api.send_text(anna.id, GROUP, "what a nice game")
    api.send_text(anna.id, GROUP, "/dance")
    api.send_text(anna.id, GROUP, "/new@some_other_bot")
    await api.quiet(0.5)


@pytest.mark.no_flood_limits  # many posts in a row: the pace would only slow it down
async def test_only_admins_change_the_group_language(api, bot, club):
    anna, bob = club
    (reply,) = await bob.send("/language", chat_id=GROUP)
    assert reply == "Alleen beheerders van de groep kunnen de taal wijzigen."
    await anna.send("/language", chat_id=GROUP)
    menu = anna.board(GROUP)
    answer, _ = await bob.tap(menu, "Deutsch", edit=False)
    assert answer["text"] == "Alleen beheerders van de groep kunnen de taal wijzigen."
    _, menu = await anna.tap(menu, "Deutsch")
    assert menu.text == "Ab jetzt schreibe ich in dieser Gruppe auf Deutsch."
    (rules,) = await anna.send("/rules", chat_id=GROUP)
    assert rules.startswith("So spielst du 2048")
    # Everything posted into the group follows, whoever asks: boards, leaderboards, cards.
    bob_board = await bob.open_board("/new 4", replies=1, chat_id=GROUP)
    assert "Punkte:" in bob_board.text
    await put_board(
        bot.database, GROUP, bob.id, [[8, 4, 0, 0]] + [[0] * 4] * 3, score=1200, moves=9
    )
    (best,) = await bob.send("/best", chat_id=GROUP)
    assert best.startswith(f"Bestenliste: {isolated('2048 Club')}")
    assert f"1. {isolated('Bob')}: 1.200" in best
    api.send_text(anna.id, GROUP, "/challenge")
    card = await api.wait_request("sendMessage", chat_id=GROUP)
    assert card.params["text"].startswith("🏆 <b>2048-Herausforderung</b>")
    welcome, _ = await bob.send("/start", replies=2)  # Bob's private chat keeps his language
    assert welcome.startswith(f"Hoi {isolated('Bob')}!")


async def test_anonymous_admins_cannot_play_but_still_set_the_language(api, bot, club):
    anna, _ = club
    api.send_text(anna.id, GROUP, "/new 4", as_group=True)
    refusal = await api.wait_request("sendMessage", chat_id=GROUP)
    assert refusal.params["text"].startswith("Anonymous admins can’t play")
    assert await execute_sql(bot.database, "UPDATE games SET active = active") == 0
    assert await execute_sql(bot.database, "UPDATE players SET name = name") == 0
    api.send_text(anna.id, GROUP, "/language", as_group=True)
    menu = await api.wait_request("sendMessage", chat_id=GROUP, after=refusal.index + 1)
    assert menu.params["text"] == "Choose the group’s language:"


async def test_an_upgraded_group_keeps_its_scores_language_and_challenge(api, bot):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob", "nl")
    api.add_group(BASIC, "2048 Club", admins={anna.id})
    await anna.send("/language", chat_id=BASIC)
    await anna.tap(anna.board(BASIC), "Deutsch")
    await anna.open_board("/new 4", replies=1, chat_id=BASIC)
    await put_board(
        bot.database, BASIC, anna.id, [[8, 4, 0, 0]] + [[0] * 4] * 3, score=1200, moves=9
    )
    await challenge_with_bob(api, anna, bob, BASIC)

    api.upgrade_group(BASIC, SUPER, anna.id)
    # The old card stays behind in the old chat: the running challenge gets one here.
    card = await api.wait_request("sendMessage", chat_id=SUPER)
    assert card.params["text"].startswith("🏆 <b>2048-Herausforderung</b>")
    assert f"1. {isolated('Bob')}" in card.params["text"] and "▶️ Spielen" in buttons(
        api.stored_message(SUPER, card.result["message_id"])
    )
    (best,) = await bob.send("/best", chat_id=SUPER)
    assert best.startswith(f"Bestenliste: {isolated('2048 Club')}")
    assert f"1. {isolated('Anna')}: 1.200" in best
    board = await anna.open_board("/new 5", replies=1, chat_id=SUPER)  # her old game ends
    assert "Punkte:" in board.text

    await end_challenge_soon(bot.database, 0.5)
    await bot.restart()
    final = await api.wait_request(
        "editMessageText", chat_id=SUPER, message_id=card.result["message_id"]
    )
    assert "Endstand" in final.params["text"]
    winner = await api.wait_request("sendMessage", chat_id=SUPER)
    assert "Bob" in winner.params["text"] and "gewinnt" in winner.params["text"]
    cards = api.find_requests("sendMessage", chat_id=SUPER, text=lambda t: "🏆 <b>2048-" in t)
    assert len(cards) == 1  # both notices were handled: the group moved once


async def test_a_challenge_ending_after_an_unnoticed_upgrade_ends_in_the_supergroup(api, bot):
    """The upgrade's notices never reached the bot: the refused send names the new id."""
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
    api.add_group(BASIC, "2048 Club", admins={anna.id})
    await challenge_with_bob(api, anna, bob, BASIC)
    await bot.stop()
    api.upgrade_group(BASIC, SUPER, anna.id)
    api.world.drop_updates()
    await end_challenge_soon(bot.database, 0.5)
    await bot.start()

    winner = await api.wait_request("sendMessage", chat_id=SUPER, text=lambda text: "wins" in text)
    assert "Bob" in winner.params["text"]
    (final,) = api.find_requests("sendMessage", chat_id=SUPER, text=lambda t: "Final" in t)
    assert f"1. {isolated('Bob')}" in final.params["text"]
    (best,) = await anna.send("/best", chat_id=SUPER)
    assert "Past challenges" in best and f"{isolated('Bob')} won with" in best


async def test_a_board_redrawn_just_after_an_upgrade_is_no_error(api, bot):
    anna = User(api, 101, "Anna")
    api.add_group(BASIC, "2048 Club", admins={anna.id})
    board = await anna.open_board("/new 4", replies=1, chat_id=BASIC)
    code = moving_code(await stored_game(bot.database, BASIC, anna.id))
    held = api.hold_next("editMessageText")
    arrow = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}[code]
    await anna.tap(board, arrow, edit=False)
    await asyncio.wait_for(held.arrived.wait(), timeout=WAIT_TIMEOUT)
    api.upgrade_group(BASIC, SUPER, anna.id)
    held.release()
    await api.wait_request("editMessageText", ok=False, chat_id=BASIC)
    board = await anna.open_board("/start", replies=2, chat_id=SUPER)  # after the notice here
    assert "1 move" in board.text  # the move was saved, and the game followed the group


@pytest.mark.slow  # 300 commands at a group's pace
async def test_a_command_flood_in_a_group_stays_within_the_groups_budget(api, bot, club):
    anna, bob = club
    mark = api.mark()
    started = time.time()
    for i in range(300):
        api.send_text((anna, bob)[i % 2].id, GROUP, "/help")
    jan = User(api, 909, "Jan")
    (welcome, _) = await jan.send("/start", replies=2)  # a private chat goes on meanwhile
    assert welcome.startswith(f"Hi {isolated('Jan')}!")
    await api.wait_request("sendMessage", after=mark, chat_id=GROUP)
    answered = api.find_requests("sendMessage", after=mark, chat_id=GROUP)
    # A burst of twenty, plus what refilled meanwhile (more of it on a slower machine).
    refilled = GROUP_MESSAGES_PER_SECOND * (time.time() - started)
    assert len(answered) <= GROUP_MESSAGE_BURST + refilled + 1
    # Nothing is left queued behind the group: the flood would take a quarter of an hour.
    async with asyncio.timeout(WAIT_TIMEOUT):
        await bot.stop()


@pytest.mark.slow  # a group's budget run out
async def test_an_upgrade_right_after_a_flood_of_commands_is_still_followed(api, bot):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
    api.add_group(BASIC, "2048 Club", admins={anna.id})
    await anna.open_board("/new 4", replies=1, chat_id=BASIC)
    await put_board(bot.database, BASIC, anna.id, [[8, 4, 0, 0]] + [[0] * 4] * 3, moves=3)
    mark = api.mark()
    for _ in range(12):  # over Anna's budget: the last ones go unanswered
        api.send_text(anna.id, BASIC, "/rules")
    answered = -1
    while answered != len(api.find_requests("sendMessage", after=mark)):  # until they stop
        answered = len(api.find_requests("sendMessage", after=mark))
        await asyncio.sleep(0.2)
    api.upgrade_group(BASIC, SUPER, anna.id)  # the notices come from Anna: no budget left
    api.send_text(bob.id, SUPER, "/best")
    best = await api.wait_request(
        "sendMessage", chat_id=SUPER, text=lambda t: "Best scores in" in t
    )
    assert f"1. {isolated('Anna')}" in best.params["text"]


async def test_an_answer_due_in_a_group_just_upgraded_goes_to_the_supergroup(api, bot):
    anna = User(api, 101, "Anna")
    api.add_group(BASIC, "2048 Club", admins={anna.id})
    held = api.hold_next("sendMessage")
    api.send_text(anna.id, BASIC, "/rules")
    await asyncio.wait_for(held.arrived.wait(), timeout=WAIT_TIMEOUT)
    api.upgrade_group(BASIC, SUPER, anna.id)
    held.release()
    await api.wait_request("sendMessage", chat_id=SUPER, text=lambda t: "How to play" in t)
