"""Groups end to end: own boards, the group leaderboard, challenges and the group language."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.presentation.render import tile_emoji
from bot.storage import Storage
from tests.support.boards import buttons, grid, isolated
from tests.support.databases import execute_sql, put_board, stored_game
from tests.support.harness import User, eventually

GROUP = -100200300


# Nothing a player does here may be logged as an error.
pytestmark = pytest.mark.usefixtures("no_errors_logged")


@pytest.fixture
def club(api):
    anna = User(api, 101, "Anna", "en")
    bob = User(api, 202, "Bob", "nl")
    api.add_group(GROUP, "2048 Club", admins={anna.id})
    return anna, bob


async def end_challenge_soon(database, seconds: float) -> float:
    """Move every open challenge's end close, as if it had been started long ago."""
    ends_at = time.time() + seconds
    await execute_sql(database, "UPDATE challenges SET ends_at = ? WHERE finished = 0", ends_at)
    await execute_sql(
        database, "UPDATE games SET closes_at = ? WHERE challenge_id IS NOT NULL", ends_at
    )
    return ends_at


async def test_boards_in_a_group_belong_to_whoever_started_them(api, bot, club):
    anna, bob = club
    anna_board = await anna.open_board("/new 4", replies=1, chat_id=GROUP)
    assert anna_board.chat_id == GROUP and f"{isolated('Anna')}'s game" in anna_board.text
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


async def test_group_leaderboard_orders_escapes_and_shows_my_rank(api, bot, club):
    players = [User(api, 300 + i, f"Player {i}") for i in range(11)]
    tricky = User(api, 400, "<b>&amp;</b>")
    for rank, user in enumerate([tricky, *players]):
        api.send_text(user.id, GROUP, "/new 4")
        await api.wait_request("sendMessage", chat_id=GROUP)
        await put_board(
            bot.database,
            GROUP,
            user.id,
            [[64, 2, 0, 0]] + [[0] * 4] * 3,
            score=10_000 - rank * 100,
            moves=50,
        )
    # Player 1 catches up with Player 0's score, but Player 0's higher tile ranks first.
    await put_board(
        bot.database,
        GROUP,
        players[0].id,
        [[128, 2, 0, 0]] + [[0] * 4] * 3,
        score=9_900,
        moves=50,
    )
    await put_board(
        bot.database,
        GROUP,
        players[1].id,
        [[64, 2, 0, 0]] + [[0] * 4] * 3,
        score=9_900,
        moves=50,
    )
    api.send_text(players[10].id, GROUP, "/best")
    reply = await api.wait_request("sendMessage", chat_id=GROUP)
    message = api.stored_message(GROUP, reply.result["message_id"])
    lines = message.text.split("\n")
    assert lines[:3] == [f"Best in {isolated('2048 Club')}", "", "Classic 4×4"]
    assert lines[3].startswith(f"1. {isolated('<b>&amp;</b>')}: 10,000")
    assert "&lt;b&gt;&amp;amp;&lt;/b&gt;" in message.html
    assert lines[4].startswith(f"2. {isolated('Player 0')}: 9,900 · top tile 128")
    assert lines[5].startswith(f"3. {isolated('Player 1')}: 9,900 · top tile 64")
    assert lines[12].startswith(f"10. {isolated('Player 8')}")
    assert lines[13] == "…" and lines[14].startswith(f"12. {isolated('Player 10')}: 8,900")
    assert "Bob" not in message.text  # no score in this group

    api.add_user(players[10].id, "Renamed Ten")
    api.send_text(players[10].id, GROUP, "/best")
    reply = await api.wait_request("sendMessage", chat_id=GROUP)
    assert (
        f"12. {isolated('Renamed Ten')}"
        in api.stored_message(GROUP, reply.result["message_id"]).text
    )


async def test_names_that_would_reverse_or_vanish_are_isolated_or_replaced(api, bot):
    mallory = User(api, 101, "\u202eyrollam")  # a right-to-left override before the name
    ghost = User(api, 987654321, "\u3164\u200b")  # nothing visible at all
    api.add_group(GROUP, "\u202ebulC", admins={mallory.id})
    mallory_board = await mallory.open_board("/new 4", replies=1, chat_id=GROUP)
    ghost_board = await ghost.open_board("/new 4", replies=1, chat_id=GROUP)
    assert "· Player 4321's game" in ghost_board.text
    for user, score in ((mallory, 2000), (ghost, 1000)):
        await put_board(
            bot.database, GROUP, user.id, [[8, 4, 0, 0]] + [[0] * 4] * 3, score=score, moves=5
        )
    (best,) = await ghost.send("/best", chat_id=GROUP)
    assert "\u202e" not in best
    lines = best.split("\n")
    assert lines[0] == f"Best in {isolated('bulC')}"
    assert lines[3].startswith(f"1. {isolated('yrollam')}: 2,000")
    assert lines[4].startswith("2. Player 4321: 1,000")
    answer, _ = await ghost.tap(mallory_board, "⬅️", edit=False)
    assert answer["text"] == f"This is {isolated('yrollam')}'s game. /new starts your own."
    answer, _ = await mallory.tap(ghost_board, "⬅️", edit=False)
    assert answer["text"] == "This is Player 4321's game. /new starts your own."
    welcome, _ = await ghost.send("/start", replies=2)
    assert welcome.startswith("Hi Player 4321!")


async def _join(api, user: User, link: str, replies: int = 2):
    """Follow a Play button's deep link: Telegram opens the private chat and sends /start."""
    payload = link.split("?start=")[1]
    assert len(payload) <= 64
    return await user.open_board(f"/start {payload}", replies=replies)


async def test_a_group_title_with_html_characters_is_shown_as_written(api, bot):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
    title = "Tom & Jerry <3 2048"
    api.add_group(GROUP, title, admins={anna.id})
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    link = buttons(api.stored_message(GROUP, sent.result["message_id"]))["▶️ Play"]
    board = await _join(api, bob, link)
    welcome = api.find_requests("sendMessage", chat_id=bob.id)[0]
    assert (
        welcome.ok
        and f"challenge from {isolated(title)}!"
        in api.stored_message(bob.id, welcome.result["message_id"]).text
    )
    assert isolated(title) in board.text


async def test_a_challenge_from_card_to_final_ranking(api, bot, club):
    anna, bob = club
    daan = User(api, 303, "Daan", "nl")
    api.send_text(anna.id, GROUP, "/challenge 4 2h")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    card = api.stored_message(GROUP, sent.result["message_id"])
    assert "2048 challenge" in card.text and "Ends" in card.text and "UTC" in card.text
    link = buttons(card)["▶️ Play"]
    assert link.startswith("https://t.me/play2048_bot?start=")

    bob_board = await _join(api, bob, link)
    daan_board = await _join(api, daan, link)
    assert isolated("2048 Club") in bob_board.text
    assert grid(bob_board) == grid(daan_board)  # the same opening tiles for everyone
    for arrow in ("⬅️", "⬆️", "➡️", "⬇️", "⬅️"):
        bob_answer, bob_board = await bob.tap(bob_board, arrow, edit=False)
        daan_answer, daan_board = await daan.tap(daan_board, arrow, edit=False)
        assert bob_answer == daan_answer
        if bob_answer["text"] is None:
            await api.wait_request("editMessageText", chat_id=daan.id)
            bob_board = bob.board()
            daan_board = daan.board()
        assert grid(bob_board) == grid(daan_board)

    live = await api.wait_request("editMessageText", chat_id=GROUP, message_id=card.message_id)
    assert "Bob" in live.params["text"] and "Daan" in live.params["text"]

    again = await _join(api, bob, link, replies=1)  # Play again: the same entry comes back
    assert grid(again) == grid(bob_board)

    ends_at = await end_challenge_soon(bot.database, 1.0)
    await bot.restart()  # the end is re-scheduled from the database
    final = await api.wait_request(
        "editMessageText",
        chat_id=GROUP,
        message_id=card.message_id,
        text=lambda text: "Final ranking" in text,
        timeout=10,
    )
    assert final.time >= ends_at - 0.05
    # Identical play: the tie goes to whoever reached the score first, and Bob always tapped first.
    assert f"1. {isolated('Bob')}" in final.params["text"]
    assert f"2. {isolated('Daan')}" in final.params["text"]
    winner = await api.wait_request("sendMessage", chat_id=GROUP, timeout=10)
    assert "wins the Classic 4×4 challenge" in winner.params["text"]
    assert "Play" not in str(api.stored_message(GROUP, card.message_id).reply_markup)

    answer, _ = await bob.tap(api.stored_message(bob.id, bob_board.message_id), "⬅️", edit=False)
    assert answer["text"] == "Deze uitdaging is voorbij. Je score telt zoals hij nu is."


async def test_undo_works_in_a_challenge_as_in_any_game(api, bot, club):
    anna, bob = club
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    board = await _join(
        api, bob, buttons(api.stored_message(GROUP, sent.result["message_id"]))["▶️ Play"]
    )
    opening = grid(board)
    for arrow in ("⬅️", "➡️"):  # one of them moves
        answer, board = await bob.tap(board, arrow, edit=False)
        if answer["text"] is None:
            await api.wait_request("editMessageText", chat_id=bob.id)
            board = bob.board()
            break
    assert grid(board) != opening
    _, board = await bob.tap(board, "↩️")
    assert grid(board) == opening and "↩️ Terug (4)" in buttons(board)


async def test_ranking_breaks_ties_by_tile_then_moves(api, bot, club):
    anna, bob = club
    carl = User(api, 304, "Carl")
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    link = buttons(api.stored_message(GROUP, sent.result["message_id"]))["▶️ Play"]
    for user in (anna, bob, carl):
        await _join(api, user, link)
    for user, (score, highest, moves) in {
        anna: (500, 64, 80),
        bob: (500, 128, 90),
        carl: (500, 64, 70),
    }.items():
        await execute_sql(
            bot.database,
            "UPDATE games SET score = ?, highest = ?, moves = ? WHERE owner_id = ? "
            "AND challenge_id IS NOT NULL",
            score,
            highest,
            moves,
            user.id,
        )
    await end_challenge_soon(bot.database, 0.5)
    await bot.restart()
    final = await api.wait_request(
        "editMessageText", chat_id=GROUP, text=lambda text: "Final ranking" in text, timeout=10
    )
    text = final.params["text"]
    first, second, third = (
        text.index(f"{rank}. {isolated(name)}")
        for rank, name in enumerate(["Bob", "Carl", "Anna"], 1)
    )
    assert first < second < third


async def test_a_challenge_ends_on_time_across_a_restart(api, bot, club):
    anna, _ = club
    api.send_text(anna.id, GROUP, "/challenge 5 1h")
    await api.wait_request("sendMessage", chat_id=GROUP)
    await bot.stop()
    ends_at = await end_challenge_soon(bot.database, 2.0)
    await bot.start()
    winner = await api.wait_request("sendMessage", chat_id=GROUP, timeout=10)
    assert winner.time >= ends_at - 0.05 and winner.time < ends_at + 3
    assert "nobody played" in winner.params["text"]
    await api.quiet(0.5)  # ends once, not again


async def test_the_winner_is_announced_even_when_the_final_card_cannot_be_edited(api, bot, club):
    anna, _ = club
    api.send_text(anna.id, GROUP, "/challenge 4 1h")
    await api.wait_request("sendMessage", chat_id=GROUP)
    await bot.stop()
    await end_challenge_soon(bot.database, 0.5)
    api.fail_next("editMessageText", "Bad Gateway", error_code=502)
    await bot.start()
    winner = await api.wait_request("sendMessage", chat_id=GROUP, timeout=10)
    assert "nobody played" in winner.params["text"]
    assert api.find_requests("editMessageText", ok=False, chat_id=GROUP)


async def test_challenge_arguments_are_checked(api, bot, club):
    anna, _ = club
    for args in ("/challenge 9", "/challenge 8d", "/challenge 4 5 6"):
        (reply,) = await anna.send(args, chat_id=GROUP)
        assert reply.startswith("Use /challenge")
    (reply,) = await anna.send("/challenge")
    assert "groups" in reply  # in private: explains where challenges happen
    for _ in range(3):
        await anna.send("/challenge", chat_id=GROUP)
    (reply,) = await anna.send("/challenge", chat_id=GROUP)
    assert "already has 3 challenges running" in reply


async def test_a_duration_is_accepted_in_any_unit_up_to_seven_days(api, bot, club):
    anna, _ = club
    for args in ("/challenge 4 10080m", "/challenge 168h", "/challenge 5 7d"):
        (card,) = await anna.send(args, chat_id=GROUP)
        assert card.startswith("🏆 2048 challenge")
    store = await Storage.open(bot.database)
    try:
        ends = [challenge.ends_at for challenge in await store.open_challenges()]
    finally:
        await store.close()
    assert len(ends) == 3 and all(abs(end - time.time() - 7 * 86400) < 60 for end in ends)
    (reply,) = await anna.send("/challenge 10081m", chat_id=GROUP)
    assert reply.startswith("Use /challenge")


async def test_editing_a_challenge_command_creates_no_second_challenge(api, bot, club):
    anna, _ = club
    command = api.send_text(anna.id, GROUP, "/challenge")
    await api.wait_request("sendMessage", chat_id=GROUP)
    for text in ("/challenge 5", "/challenge 6 1h"):
        api.edit_text(anna.id, GROUP, command["message_id"], text)
        await eventually(lambda: not api.pending_updates)
        await api.quiet(0.5)
    store = await Storage.open(bot.database)
    try:
        assert len(await store.open_challenges()) == 1
    finally:
        await store.close()


async def test_forged_challenge_links_are_refused(api, bot, club):
    _, bob = club
    for payload in ("c1_aaaaaaaa", "c999_abcdefgh", "x" * 64, "c1"):
        (reply,) = await bob.send(f"/start {payload}")
        assert reply.startswith("Deze uitdagingslink werkt niet")


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
    assert best.startswith(f"Die Besten in {isolated('2048 Club')}")
    assert f"1. {isolated('Bob')}: 1.200" in best
    api.send_text(anna.id, GROUP, "/challenge")
    card = await api.wait_request("sendMessage", chat_id=GROUP)
    assert card.params["text"].startswith("🏆 <b>2048-Herausforderung</b>")
    welcome, _ = await bob.send("/start", replies=2)  # Bob's private chat keeps his language
    assert welcome.startswith(f"Hoi {isolated('Bob')}!")


async def test_card_edits_stay_within_the_group_budget_during_a_burst(api, bot, club):
    anna, _ = club
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    card_id = sent.result["message_id"]
    link = buttons(api.stored_message(GROUP, card_id))["▶️ Play"]
    players = [User(api, 1000 + i, f"P{i}") for i in range(50)]
    boards = [await _join(api, p, link) for p in players]
    start = time.monotonic()
    for round_ in range(4):
        for player, board in zip(players, boards, strict=True):
            data = buttons(board)[("⬅️", "⬆️", "➡️", "⬇️")[round_]]
            api.tap(player.id, player.id, board.message_id, data)
        await asyncio.sleep(0.2)
    await asyncio.sleep(bot.card_interval * 2)
    elapsed = time.monotonic() - start
    edits = api.find_requests("editMessageText", chat_id=GROUP, message_id=card_id)
    assert edits, "the card never showed the standings"
    assert len(edits) <= elapsed / bot.card_interval + 1
