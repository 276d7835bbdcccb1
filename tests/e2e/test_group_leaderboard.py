"""A group's /best, end to end: its players ranked, their names shown safely, its challenges."""

from __future__ import annotations

import re

import pytest

from tests.support.boards import isolated
from tests.support.databases import put_board
from tests.support.groups import GROUP, SUPER, challenge_with_bob, end_challenge_soon
from tests.support.harness import User


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
    assert lines[:3] == [f"Best scores in {isolated('2048 Club')}", "", "Classic 4×4"]
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
    assert lines[0] == f"Best scores in {isolated('bulC')}"
    assert lines[3].startswith(f"1. {isolated('yrollam')}: 2,000")
    assert lines[4].startswith("2. Player 4321: 1,000")
    answer, _ = await ghost.tap(mallory_board, "⬅️", edit=False)
    assert answer["text"] == f"This is {isolated('yrollam')}’s game. /new starts your own."
    answer, _ = await mallory.tap(ghost_board, "⬅️", edit=False)
    assert answer["text"] == "This is Player 4321’s game. /new starts your own."
    welcome, _ = await ghost.send("/start", replies=2)
    assert welcome.startswith("Hi Player 4321!")


async def test_best_in_a_group_shows_its_running_and_past_challenges(api, bot, club):
    anna, bob = club
    await challenge_with_bob(api, anna, bob, GROUP)
    (best,) = await anna.send("/best", chat_id=GROUP)
    assert "Nobody in this group has a score" not in best
    assert "Live challenge · Classic 4×4" in best and f"\n1. {isolated('Bob')}: " in best
    assert "tap “▶️ Play” under the challenge message above" in best  # no links here

    await end_challenge_soon(bot.database, 0.5)
    await bot.restart()
    await api.wait_request("sendMessage", chat_id=GROUP, text=lambda t: "wins" in t)
    (best,) = await bob.send("/best", chat_id=GROUP)
    assert "Live challenge" not in best
    assert re.search(
        r"Afgelopen uitdagingen\n\d+ \w+\.? · Klassiek 4×4: \u2068Bob\u2069 won met \d+", best
    )

    api.add_group(SUPER, "Big Club", admins={anna.id})
    card = (await challenge_with_bob(api, anna, bob, SUPER)).message_id
    api.send_text(anna.id, SUPER, "/best")
    best = await api.wait_request("sendMessage", chat_id=SUPER)
    link = f'<a href="https://t.me/c/{-SUPER - 10**12}/{card}">'
    assert link in best.params["text"]
