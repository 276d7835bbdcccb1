"""A group's challenges, end to end: the card, joining by its deep link, the standings as
they change, the end on time with its winner, and the arguments /challenge takes."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from bot.chat.cards import CARD_TOP
from bot.models import NewChallenge
from bot.presentation.i18n import translator
from bot.presentation.leaderboards import standing_line
from bot.storage import open_storage
from tests.support.boards import (
    button_data,
    buttons,
    grid,
    isolated,
)
from tests.support.databases import count_rows, execute_sql
from tests.support.groups import GROUP, end_challenge_soon, join, open_challenges
from tests.support.harness import RunningBot, User, eventually


async def test_a_group_title_with_html_characters_is_shown_as_written(api, bot):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
    title = "Tom & Jerry <3 2048"
    api.add_group(GROUP, title, admins={anna.id})
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    link = buttons(api.stored_message(GROUP, sent.result["message_id"]))["▶️ Play"]
    board = await join(api, bob, link)
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
        r"\nEnds \w+ \d+ at \d{1,2}:\d\d\u202f[AP]M UTC\.", card.text
    )
    link = buttons(card)["▶️ Play"]
    assert link.startswith("https://t.me/play2048_bot?start=")

    bob_board = await join(api, bob, link)
    left = button_data(bob_board, "⬅️")
    daan_board = await join(api, daan, link)
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

    again = await join(api, bob, link, replies=1)  # Play again: the same entry comes back
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
    assert answer["text"] == "Deze uitdaging is voorbij. Je score staat vast."


async def test_undo_works_in_a_challenge_as_in_any_game(api, bot, club):
    anna, bob = club
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    board = await join(
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
        await join(api, user, link)
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
        ("de", ["2 Std.", "2h", "30 Min"]),
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


async def test_card_edits_stay_within_the_group_budget_during_a_burst(api, bot, club):
    anna, _ = club
    api.send_text(anna.id, GROUP, "/challenge")
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    card_id = sent.result["message_id"]
    link = buttons(api.stored_message(GROUP, card_id))["▶️ Play"]
    players = [User(api, 1000 + i, f"P{i}") for i in range(50)]
    boards = [await join(api, p, link) for p in players]
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
    assert len(edits) <= (edits[-1].time - start) / bot.config.card_interval + 1
    assert not [r for r in api.requests if r.error_code == 429]


async def test_a_deleted_challenge_command_still_gets_its_card(api, bot, club):
    anna, bob = club
    command = api.send_text(anna.id, GROUP, "/challenge 5 1h")
    api.delete_message(GROUP, command["message_id"])  # before the bot has read it
    sent = await api.wait_request("sendMessage", chat_id=GROUP)
    assert sent.ok and "Large 5×5" in sent.params["text"]
    link = buttons(api.stored_message(GROUP, sent.result["message_id"]))["▶️ Play"]
    board = await join(api, bob, link)
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
    await join(api, bob, link)
    await end_challenge_soon(bot.database, 0.2)
    await bot.restart()  # the end is scheduled anew from the database
    await api.wait_request("sendMessage", chat_id=GROUP, after=sent.index + 1)
    (reply,) = await bob.send(f"/start {link.split('?start=')[1]}")
    assert reply == "Deze uitdaging is voorbij. Je score staat vast."


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


def _zone(text: str) -> str:
    match = re.search(r"\d:\d\d(?:\u202f[AP]M)? (?:Uhr )?(\S+?)[.)]?(?:\s|$)", text)
    assert match is not None, text
    return match.group(1)


async def test_a_group_shows_one_zone_on_its_card_in_a_join_and_in_best(api, bot):
    """Members read in their own languages; the group's clock is one, UTC until its admins
    choose a language, then that language's."""
    daan = User(api, 202, "Daan", "nl")
    anna = User(api, 101, "Anna", "en")
    lena = User(api, 303, "Lena", "de")
    api.add_group(GROUP, "Klub", admins={daan.id}, members={anna.id, lena.id})

    async def zones() -> list[str]:
        sent = await api.wait_request("sendMessage", chat_id=GROUP)
        card = api.stored_message(GROUP, sent.result["message_id"])
        link = next(url for url in buttons(card).values() if "start=" in url)
        joined, _ = await anna.send(f"/start {link.split('start=')[1]}", replies=2)
        (best,) = await lena.send("/best", chat_id=GROUP)
        return [_zone(card.text), _zone(joined), _zone(best)]

    api.send_text(daan.id, GROUP, "/challenge")
    assert await zones() == ["UTC"] * 3
    await daan.send("/language", chat_id=GROUP)
    await daan.tap(daan.board(GROUP), "Nederlands")
    api.send_text(daan.id, GROUP, "/challenge 5")
    shown = await zones()
    assert shown[0] in ("CET", "CEST") and shown == [shown[0]] * 3


async def test_a_challenge_another_process_created_is_ended_on_time(api, postgres):
    """The creating process may be gone: every process adopts the open challenges it sees."""
    running = RunningBot(api, postgres, challenge_sync_interval=0.2)
    await running.start()
    try:
        api.add_group(GROUP, "Racers", admins={601})
        store = await open_storage(postgres)  # "another process" creates two challenges
        try:
            now = time.time()
            async with store.transaction():
                later = await store.insert_challenge(
                    NewChallenge(GROUP, "Racers", "en", 601, 5, 78, "bcdefghj", now + 3600), now
                )
                soon = await store.insert_challenge(
                    NewChallenge(GROUP, "Racers", "en", 601, 4, 77, "abcdefgh", now + 1.5), now
                )
        finally:
            await store.close()
        # Adopted: due when it ends (between the two clock readings there is only the bot's
        # own code, no wait), and ended then, never before.
        await eventually(lambda: running.challenge_end_due(later.id) is not None)
        assert abs(running.challenge_end_due(later.id) - later.ends_at) < 1
        ending = await api.wait_request(
            "sendMessage", chat_id=GROUP, text=lambda t: "nobody took part" in t
        )
        assert ending.time >= soon.ends_at - 0.05
    finally:
        await running.stop()
