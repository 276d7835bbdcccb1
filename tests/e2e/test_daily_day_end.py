"""The daily's day end, end to end: three players play today's daily, the daily's clock passes
midnight and the minute the places settle in, the `daily-places` job keeps them, and each
player sees the day as it ended: their final place in /stats, yesterday's final results in
/daily top, the group's final ranking and winner, and a board that takes no more moves.

The day turns on the daily's clock (tests/support/daily.py), moved past midnight by the test;
the job runs every KEEP_PLACES_EVERY seconds of the real one, and the test runs its next turn
at once.
"""

from __future__ import annotations

import asyncio

from bot.emulator import StoredMessage
from bot.models import Standing
from bot.presentation.daily import day_name
from bot.presentation.i18n import translator
from bot.services.daily import PLACES_SETTLE
from bot.storage import open_storage
from tests.support.boards import buttons, isolated, shown_moves
from tests.support.databases import Database
from tests.support.groups import GROUP
from tests.support.harness import User, eventually

ARROWS = {"l": "⬅️", "u": "⬆️", "r": "➡️", "d": "⬇️"}


async def _play(user: User, arrows: str) -> None:
    """The player's /daily, one tap per arrow, each answered (its move saved) before the next."""
    await user.send("/daily", replies=2)
    board = user.board()
    for arrow in arrows:
        await user.tap(board, ARROWS[arrow], edit=False)


async def _kept(database: Database, day: str) -> tuple[int | None, dict[int, tuple[int, int]]]:
    """The 4×4 daily's kept number of players (None: not kept yet), and each player's score
    and kept place."""
    store = await open_storage(database)
    try:
        daily = await store.daily_of(day, 4)
        assert daily is not None
        row = await store._fetchrow("SELECT players FROM dailies WHERE id = ?", (daily.id,))
        rows = await store._fetchall(
            "SELECT owner_id, score, daily_place FROM games WHERE daily_id = ?", (daily.id,)
        )
    finally:
        await store.close()
    assert row is not None
    return row[0], {owner: (score, place) for owner, score, place in rows}


async def _ranking(database: Database, day: str) -> list[Standing]:
    """The day's 4×4 daily, best first, as its ranking stands."""
    store = await open_storage(database)
    try:
        daily = await store.daily_of(day, 4)
        assert daily is not None
        return await store.daily_top(daily.id, 10)
    finally:
        await store.close()


async def test_the_day_ends_with_the_places_kept_and_every_player_sees_them(
    api, daybot, club, database, clock
):
    anna, bob = club  # Anna (English) is the group's admin; Bob (Dutch) plays there too
    carl = User(api, 303, "Carl")  # plays in private only
    dora = User(api, 404, "Dora")  # opens the daily and never moves: not ranked
    await anna.send("/new 4", chat_id=GROUP)
    await bob.send("/new 4", chat_id=GROUP)
    said, _ = await anna.send("/daily on", chat_id=GROUP, replies=2)
    assert said.startswith("The daily is on in this group")
    (card,) = [m for m in api.messages(GROUP) if "Daily 2048" in m.get("text", "")]
    await _play(anna, "lurdlurd")
    await _play(bob, "ludr")
    await _play(carl, "lr")
    await dora.send("/daily", replies=2)
    yesterday = clock.day()
    board = anna.board()
    standings = await _ranking(database, yesterday)
    ranked = [standing.user_id for standing in standings]
    assert sorted(ranked) == sorted([anna.id, bob.id, carl.id])
    # Her board shows her last move before midnight (a redraw drawn after it shows the end).
    (annas,) = [standing for standing in standings if standing.user_id == anna.id]
    await eventually(lambda: shown_moves(board_text(api, board)) == annas.moves)
    place = {user_id: rank for rank, user_id in enumerate(ranked, 1)}
    players = {anna.id: "Anna", bob.id: "Bob", carl.id: "Carl"}
    assert (await _kept(database, yesterday))[0] is None  # the day runs: nothing kept yet

    mark = api.mark()
    clock.next_day(after=PLACES_SETTLE + 1)  # past midnight, and the minute places settle in
    assert daybot.application.job_queue is not None
    (job,) = daybot.application.job_queue.get_jobs_by_name("daily-places")
    await job.run(daybot.application)  # its next turn, now rather than up to half a minute on
    # The catch-up, every few seconds, turns the day: the group's winner is said and today's
    # daily drawn.
    winner = await api.wait_request(
        "sendMessage", after=mark, chat_id=GROUP, text=lambda t: " daily in this group with " in t
    )

    # The job kept the final places: three ranked players, Dora not among them.
    for _ in range(300):  # a scheduled run beside this one may still be writing
        count, games = await _kept(database, yesterday)
        if count is not None:
            break
        await asyncio.sleep(0.1)
    assert count == 3
    assert {owner: kept_place for owner, (_, kept_place) in games.items()} == {
        **place,
        dora.id: None,
    }

    # /stats: the final place, in each player's language.
    name = day_name(translator("en"), yesterday)
    for user in (anna, carl):
        text = await _stats(user)
        assert f"Last daily: #{place[user.id]} of 3 players (Classic 4×4, {name})" in text
        assert f"Best daily rank: #{place[user.id]} of 3 players (Classic 4×4, {name})" in text
        assert "🔥 Daily streak: 1 day in a row. Longest: 1 day." in text  # yesterday counts
    dutch = await _stats(bob)
    assert f"Laatste dagpuzzel: {place[bob.id]}e van 3 spelers (" in dutch
    assert f"Beste dagpuzzel: {place[bob.id]}e van 3 spelers (" in dutch

    # /daily top: today's, nobody on it yet, then yesterday's final results, in order.
    (top,) = await carl.send("/daily top")
    today, final = top.split("🏁 Yesterday’s final results")
    assert "Nobody has played it yet." in today
    lines = final.strip().split("\n")
    assert [line.split(":")[0] for line in lines] == [
        f"{place[user_id]}. {isolated(players[user_id])}" for user_id in ranked
    ]
    (dutch,) = await bob.send("/daily top")
    assert "🏁 De eindstand van gisteren" in dutch

    # The group: its card shows the final standings, and one winner is said.
    in_group = sorted((anna, bob), key=lambda user: place[user.id])
    said = api.stored_message(GROUP, winner.result["message_id"]).text
    assert said.startswith(f"📅 {isolated(in_group[0].first_name)} wins the {name} daily in ")
    final_card = api.stored_message(GROUP, card["message_id"])
    assert "Final standings" in final_card.text and not buttons(final_card)
    assert f"1. {isolated(in_group[0].first_name)}" in final_card.text
    assert f"2. {isolated(in_group[1].first_name)}" in final_card.text
    assert "Carl" not in final_card.text  # he never played in the group

    # Yesterday's board takes no more moves: the day is over, at the score it ended with.
    score = games[anna.id][0]
    toast, _ = await anna.tap(board, "⬅️", edit=False)
    assert toast["text"] == (
        f"This daily ended at midnight UTC. Your final score: {translator('en').number(score)}."
    )
    await eventually(lambda: "This daily has ended" in board_text(api, board))
    assert "⬅️" not in buttons(api.stored_message(anna.id, board.message_id))
    _, after = await _kept(database, yesterday)
    assert after[anna.id] == (score, place[anna.id])  # the tap changed nothing


def board_text(api, board: StoredMessage) -> str:
    """The board's text as the chat shows it now."""
    return api.stored_message(board.chat_id, board.message_id).text


async def _stats(user: User) -> str:
    """The player's /stats text (its chart follows as a picture)."""
    (text,) = await user.send("/stats")
    return text
