"""Groups end to end: own boards, the group leaderboard, challenges and the group language."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from bot.app import GROUP_MESSAGE_BURST, GROUP_MESSAGES_PER_SECOND
from bot.emulator import StoredMessage
from bot.emulator.api import WAIT_TIMEOUT
from bot.handlers.challenges import CARD_TOP
from bot.presentation.i18n import translator
from bot.presentation.leaderboards import standing_line
from bot.presentation.render import tile_emoji
from bot.storage import open_storage
from tests.support.boards import button_data, buttons, grid, isolated, moving_code
from tests.support.databases import count_rows, execute_sql, put_board, stored_game
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


async def open_challenges(database) -> list:
    store = await open_storage(database)
    try:
        return await store.open_challenges()
    finally:
        await store.close()


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
    assert lines[:3] == [f"Top scores in {isolated('2048 Club')}", "", "Classic 4×4"]
    assert lines[3].startswith(f"1. {isolated('<b>&amp;</b>')}: 10,000")
    assert "&lt;b&gt;&amp;amp;&lt;/b&gt;" in message.html
    assert lines[4].startswith(f"2. {isolated('Player 0')}: 9,900 points · highest tile 128")
    assert lines[5].startswith(f"3. {isolated('Player 1')}: 9,900 points · highest tile 64")
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
    assert "· Player 4321’s game" in ghost_board.text
    for user, score in ((mallory, 2000), (ghost, 1000)):
        await put_board(
            bot.database, GROUP, user.id, [[8, 4, 0, 0]] + [[0] * 4] * 3, score=score, moves=5
        )
    (best,) = await ghost.send("/best", chat_id=GROUP)
    assert "\u202e" not in best
    lines = best.split("\n")
    assert lines[0] == f"Top scores in {isolated('bulC')}"
    assert lines[3].startswith(f"1. {isolated('yrollam')}: 2,000")
    assert lines[4].startswith("2. Player 4321: 1,000")
    answer, _ = await ghost.tap(mallory_board, "⬅️", edit=False)
    assert answer["text"] == f"This is {isolated('yrollam')}’s game. /new starts your own."
    answer, _ = await mallory.tap(ghost_board, "⬅️", edit=False)
    assert answer["text"] == "This is Player 4321’s game. /new starts your own."
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
        and f"joined the challenge in {isolated(title)}!"
        in api.stored_message(bob.id, welcome.result["message_id"]).text
    )
    assert isolated(title) in board.text


async def test_a_challenge_from_card_to_final_ranking(api, bot, club):
    anna, bob = club
    daan = User(api, 303, "Daan", "nl")
    api.send_text(anna.id, GROUP, "/challenge 4 2h")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    card = api.stored_message(GROUP, sent.result["message_id"])
    assert "2048 challenge" in card.text and re.search(
        r"\nEnds \w+ \d+ at \d\d:\d\d UTC\.", card.text
    )
    link = buttons(card)["▶️ Play"]
    assert link.startswith("https://t.me/play2048_bot?start=")

    bob_board = await _join(api, bob, link)
    left = button_data(bob_board, "⬅️")
    daan_board = await _join(api, daan, link)
    welcome = api.find_requests("sendMessage", chat_id=daan.id)[0].result["message_id"]
    # Daan reads Dutch, on the clock of the (English) group's card.
    assert re.search(
        r"Spelen kan tot \d+ \w+ om \d\d:\d\d UTC\.$", api.stored_message(daan.id, welcome).text
    )
    assert isolated("2048 Club") in bob_board.text
    assert grid(bob_board) == grid(daan_board)  # the same opening tiles for everyone
    playing = api.mark()
    for arrow in ("⬅️", "⬆️", "➡️", "⬇️", "⬅️"):
        mark = api.mark()
        bob_answer, bob_board = await bob.tap(bob_board, arrow, edit=False)
        daan_answer, daan_board = await daan.tap(daan_board, arrow, edit=False)
        assert bob_answer == daan_answer
        if bob_answer["text"] is None:  # both boards are redrawn, in either order
            for player in (bob, daan):
                await api.wait_request("editMessageText", after=mark, chat_id=player.id)
            bob_board = bob.board()
            daan_board = daan.board()
        assert grid(bob_board) == grid(daan_board)

    # The live card shows both players (its first edit may have come before Daan's move).
    await api.wait_request(
        "editMessageText",
        after=playing,
        chat_id=GROUP,
        message_id=card.message_id,
        text=lambda text: "Bob" in text and "Daan" in text,
    )

    again = await _join(api, bob, link, replies=1)  # Play again: the same entry comes back
    assert grid(again) == grid(bob_board)

    ends_at = await end_challenge_soon(bot.database, 1.0)
    await bot.restart()  # the end is re-scheduled from the database
    final = await api.wait_request(
        "editMessageText",
        chat_id=GROUP,
        message_id=card.message_id,
        text=lambda text: "Final standings" in text,
    )
    assert final.time >= ends_at - 0.05
    # Identical play: the tie goes to whoever reached the score first, and Bob always tapped first.
    assert f"1. {isolated('Bob')}" in final.params["text"]
    assert f"2. {isolated('Daan')}" in final.params["text"]
    winner = await api.wait_request("sendMessage", chat_id=GROUP)
    assert "wins the Classic 4×4 challenge" in winner.params["text"]
    assert "Play" not in str(api.stored_message(GROUP, card.message_id).reply_markup)

    # The board loses its arrows when the challenge ends; a client that still shows them
    # gets the same answer.
    answer, _ = await bob.tap_data(
        api.stored_message(bob.id, bob_board.message_id), left, strict=False
    )
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
    assert grid(board) == opening and "↩️ Terugnemen" in buttons(board)
    assert board.text.endswith("0 zetten · nog 4× terugnemen")


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
        "editMessageText", chat_id=GROUP, text=lambda text: "Final standings" in text
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
    ends_at = await end_challenge_soon(bot.database, 3600.0)
    await bot.start()
    # Due when the challenge ends, not an hour after the restart (between the two clock
    # readings there is only the bot's own code, no wait).
    (challenge_id,) = [c.id for c in await open_challenges(bot.database)]
    assert abs(bot.challenge_end_due(challenge_id) - ends_at) < 1
    await bot.stop()
    ends_at = await end_challenge_soon(bot.database, 0.5)
    await bot.start()
    winner = await api.wait_request("sendMessage", chat_id=GROUP)
    assert winner.time >= ends_at - 0.05  # never early
    assert "nobody took part" in winner.params["text"]
    await api.quiet(0.5)  # ends once, not again


async def test_the_winner_is_announced_even_when_the_final_card_cannot_be_edited(api, bot, club):
    anna, _ = club
    api.send_text(anna.id, GROUP, "/challenge 4 1h")
    await api.wait_request("sendMessage", chat_id=GROUP)
    await bot.stop()
    await end_challenge_soon(bot.database, 0.5)
    api.fail_next("editMessageText", "Bad Gateway", error_code=502)
    await bot.start()
    winner = await api.wait_request("sendMessage", chat_id=GROUP)
    assert "nobody took part" in winner.params["text"]
    assert api.find_requests("editMessageText", ok=False, chat_id=GROUP)


@pytest.mark.no_flood_limits  # many posts in a row: the pace would only slow it down
async def test_challenge_arguments_are_checked(api, bot, club):
    anna, _ = club
    for args in ("/challenge 9", "/challenge 8d", "/challenge 4 5 6"):
        (reply,) = await anna.send(args, chat_id=GROUP)
        assert reply.startswith("Start a challenge with /challenge")
    (reply,) = await anna.send("/challenge")
    assert "groups" in reply  # in private: explains where challenges happen
    for _ in range(3):
        await anna.send("/challenge", chat_id=GROUP)
    (reply,) = await anna.send("/challenge", chat_id=GROUP)
    assert "already has 3 challenges running" in reply


async def test_a_duration_is_accepted_in_any_unit_up_to_seven_days(api, bot, club):
    anna, _ = club
    started = time.time()
    for args in ("/challenge 4 10080m", "/challenge 168h", "/challenge 5 7d"):
        (card,) = await anna.send(args, chat_id=GROUP)
        assert card.startswith("🏆 2048 challenge")
    answered = time.time()
    ends = [challenge.ends_at for challenge in await open_challenges(bot.database)]
    # A week from when the command came, which was between the first send and the last reply.
    week = 7 * 86400
    assert len(ends) == 3 and all(started + week <= end <= answered + week for end in ends)
    (reply,) = await anna.send("/challenge 10081m", chat_id=GROUP)
    assert reply.startswith("Start a challenge with /challenge")


def _utf16_slice(text: str, offset: int, length: int) -> str:
    """The piece of `text` an entity marks: entities count UTF-16 code units."""
    units = text.encode("utf-16-le")
    return units[2 * offset : 2 * (offset + length)].decode("utf-16-le")


@pytest.mark.no_flood_limits  # nine cards in three groups: the pace would only slow it down
@pytest.mark.parametrize(
    ("language", "local_forms"),
    [
        ("en", ["2h", "2 hours", "30 min"]),
        ("nl", ["2u", "2 uur", "30 min"]),
        ("de", ["2 Std", "2h", "30 Min"]),
    ],
)
async def test_the_usage_reply_shows_local_examples_that_are_not_one_tap_away(
    api, bot, language, local_forms
):
    group = -100900900
    player = User(api, 909, "Sam", language)
    api.add_group(group, "Usage", admins={player.id})
    api.send_text(player.id, group, "/challenge 9")
    sent = await api.wait_request("sendMessage", chat_id=group)
    usage = api.stored_message(group, sent.result["message_id"])
    code = [e for e in usage.entities if e["type"] == "code"]
    commands = api.world.bot_commands_in(usage.text)
    assert commands, "the usage reply names the command"
    for command in commands:  # Telegram makes a /word tappable unless it is code
        start, end = command["offset"], command["offset"] + command["length"]
        assert any(e["offset"] <= start and end <= e["offset"] + e["length"] for e in code)
    examples = [_utf16_slice(usage.text, e["offset"], e["length"]) for e in code]
    examples = [example for example in examples if example != "/challenge"]
    assert len(examples) == len(local_forms)
    assert all(ex.endswith(" " + form) for ex, form in zip(examples, local_forms, strict=True))
    for example in examples:  # each example, typed as shown, starts the challenge it promises
        api.send_text(player.id, group, example)
        card = await api.wait_request("sendMessage", chat_id=group, after=sent.index + 1)
        assert card.params["text"].startswith("🏆 <b>")
        sent = card
    store = await open_storage(bot.database)
    try:
        started = await store.open_challenges(group)
    finally:
        await store.close()
    lengths = sorted(round((c.ends_at - time.time()) / 60) for c in started)
    assert lengths == [30, 120, 120]


async def test_editing_a_challenge_command_creates_no_second_challenge(api, bot, club):
    anna, _ = club
    command = api.send_text(anna.id, GROUP, "/challenge")
    await api.wait_request("sendMessage", chat_id=GROUP)
    for text in ("/challenge 5", "/challenge 6 1h"):
        api.edit_text(anna.id, GROUP, command["message_id"], text)
        await eventually(lambda: not api.pending_updates)
        await api.quiet(0.5)
    assert len(await open_challenges(bot.database)) == 1


async def test_forged_challenge_links_are_refused(api, bot, club):
    _, bob = club
    for payload in ("c1_aaaaaaaa", "c999_abcdefgh", "x" * 64, "c1"):
        (reply,) = await bob.send(f"/start {payload}")
        assert reply.startswith("Deze uitdagingslink werkt niet")


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


async def test_card_edits_stay_within_the_group_budget_during_a_burst(api, bot, club):
    anna, _ = club
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    card_id = sent.result["message_id"]
    link = buttons(api.stored_message(GROUP, card_id))["▶️ Play"]
    players = [User(api, 1000 + i, f"P{i}") for i in range(50)]
    boards = [await _join(api, p, link) for p in players]
    start = time.time()  # the emulator's clock, on which it records every request
    for round_ in range(4):  # fifty taps at once, four times: far more than the card can show
        queries = [
            api.tap(p.id, p.id, board.message_id, buttons(board)[("⬅️", "⬆️", "➡️", "⬇️")[round_]])
            for p, board in zip(players, boards, strict=True)
        ]
        for query in queries:
            await api.wait_answer(query, timeout=60)
    store = await open_storage(bot.database)
    try:
        (challenge,) = await store.open_challenges()
        standings = await store.challenge_standings(challenge.id, CARD_TOP)
    finally:
        await store.close()
    expected = [standing_line(translator("en"), s) for s in standings if s.rank <= CARD_TOP]

    def shows_the_standings() -> bool:
        edits = api.find_requests("editMessageText", chat_id=GROUP, message_id=card_id)
        return bool(edits) and all(line in edits[-1].params["text"] for line in expected)

    await eventually(shows_the_standings, timeout=60)  # the card ends on the latest standings
    edits = api.find_requests("editMessageText", chat_id=GROUP, message_id=card_id)
    assert "50 players" in edits[-1].params["text"]
    # Each edit starts an interval after the one before, all of them between the first tap
    # and the last edit: however slow the machine, no more edits fit in that time.
    assert len(edits) <= (edits[-1].time - start) / bot.card_interval + 1
    assert not [r for r in api.requests if r.error_code == 429]


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


async def test_a_deleted_challenge_command_still_gets_its_card(api, bot, club):
    anna, bob = club
    command = api.send_text(anna.id, GROUP, "/challenge 5 1h")
    api.delete_message(GROUP, command["message_id"])  # before the bot has read it
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    assert sent.ok and "Large 5×5" in sent.params["text"]
    link = buttons(api.stored_message(GROUP, sent.result["message_id"]))["▶️ Play"]
    board = await _join(api, bob, link)
    assert len(grid(board)) == 5
    command = api.send_text(anna.id, GROUP, "/best")
    api.delete_message(GROUP, command["message_id"])
    best = await api.wait_request("sendMessage", chat_id=GROUP, after=sent.index + 1)
    assert best.ok


async def test_an_ended_challenges_link_shows_no_live_board(api, bot, club):
    anna, bob = club
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    link = buttons(api.stored_message(GROUP, sent.result["message_id"]))["▶️ Play"]
    await _join(api, bob, link)
    await end_challenge_soon(bot.database, 0.2)
    await bot.restart()  # the end is scheduled anew from the database
    await api.wait_request("sendMessage", chat_id=GROUP, after=sent.index + 1)
    (reply,) = await bob.send(f"/start {link.split('?start=')[1]}")
    assert reply == "Deze uitdaging is voorbij. Je score telt zoals hij nu is."


async def test_a_challenge_whose_card_cannot_be_posted_holds_no_place(api, bot, club):
    """Removed from the group: no card means nobody can join, so the group must not be left
    with an invisible challenge holding one of its three places."""
    anna, _ = club
    api.fail_next("sendMessage", "Forbidden: bot was kicked from the group chat", 403)
    api.send_text(anna.id, GROUP, "/challenge")
    await api.wait_request("sendMessage", ok=False, chat_id=GROUP)
    for _ in range(3):
        api.send_text(anna.id, GROUP, "/challenge 5 1h")
        card = await api.wait_request("sendMessage", chat_id=GROUP)
        assert "Large 5×5" in card.params["text"]
    assert await count_rows(bot.database, "challenges") == 3


async def test_a_card_a_network_error_held_up_is_posted_once_it_passes(api, bot, club):
    """The card is owed from the moment the challenge is saved: a failed post is tried
    again, and the group sees one card, which the challenge keeps as its own."""
    anna, _ = club
    mark = api.mark()
    api.fail_next("sendMessage", "Bad Gateway", 502)
    api.send_text(anna.id, GROUP, "/challenge 5 1h")
    await api.wait_request("sendMessage", ok=False, chat_id=GROUP, after=mark)
    card = await api.wait_request("sendMessage", chat_id=GROUP, after=mark, timeout=30)
    assert "Large 5×5" in card.params["text"]
    card_id = card.result["message_id"]

    async def kept() -> None:
        while not await count_rows(bot.database, "challenges", "message_id = ?", card_id):
            await asyncio.sleep(0.02)

    await asyncio.wait_for(kept(), timeout=30)
    shown = [m for m in api.messages(GROUP) if m["from"]["id"] == api.bot_id]
    assert [m["message_id"] for m in shown] == [card_id]


BASIC = -4500  # a basic group: Telegram gives its supergroup a new id when it is upgraded
SUPER = -1_000_000_004_500


async def _challenge_with_bob(api, anna: User, bob: User, chat_id: int) -> StoredMessage:
    """A challenge in `chat_id` that Bob has joined and made a move in; its card."""
    api.send_text(anna.id, chat_id, "/challenge 4 1h")
    sent = await api.wait_request("sendMessage", chat_id=chat_id)
    card = api.stored_message(chat_id, sent.result["message_id"])
    (link,) = [url for label, url in buttons(card).items() if label.startswith("▶️")]
    board = await _join(api, bob, link)
    for arrow in ("⬅️", "➡️"):
        answer, board = await bob.tap(board, arrow, edit=False)
        if answer["text"] is None:
            await api.wait_request("editMessageText", chat_id=bob.id)
            break
    return card


async def test_an_upgraded_group_keeps_its_scores_language_and_challenge(api, bot):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob", "nl")
    api.add_group(BASIC, "2048 Club", admins={anna.id})
    await anna.send("/language", chat_id=BASIC)
    await anna.tap(anna.board(BASIC), "Deutsch")
    await anna.open_board("/new 4", replies=1, chat_id=BASIC)
    await put_board(
        bot.database, BASIC, anna.id, [[8, 4, 0, 0]] + [[0] * 4] * 3, score=1200, moves=9
    )
    await _challenge_with_bob(api, anna, bob, BASIC)

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
    await _challenge_with_bob(api, anna, bob, BASIC)
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


async def test_best_in_a_group_shows_its_running_and_past_challenges(api, bot, club):
    anna, bob = club
    await _challenge_with_bob(api, anna, bob, GROUP)
    (best,) = await anna.send("/best", chat_id=GROUP)
    assert "Nobody in this group has a score" not in best
    assert "Running challenge · Classic 4×4" in best and f"\n1. {isolated('Bob')}: " in best
    assert "tap “Play” on the challenge message above" in best  # no links here

    await end_challenge_soon(bot.database, 0.5)
    await bot.restart()
    await api.wait_request("sendMessage", chat_id=GROUP, text=lambda t: "wins" in t)
    (best,) = await bob.send("/best", chat_id=GROUP)
    assert "Running challenge" not in best
    assert re.search(
        r"Afgelopen uitdagingen\n\d+ \w+\.? · Klassiek 4×4: \u2068Bob\u2069 won met \d+", best
    )

    api.add_group(SUPER, "Big Club", admins={anna.id})
    card = (await _challenge_with_bob(api, anna, bob, SUPER)).message_id
    api.send_text(anna.id, SUPER, "/best")
    best = await api.wait_request("sendMessage", chat_id=SUPER)
    link = f'<a href="https://t.me/c/{-SUPER - 10**12}/{card}">'
    assert link in best.params["text"]


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
    best = await api.wait_request("sendMessage", chat_id=SUPER, text=lambda t: "Top scores in" in t)
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
