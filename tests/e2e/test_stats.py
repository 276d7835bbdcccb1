"""/stats end to end: the text and the chart in private, one line and a link in a group, and
the link's `/start stats` showing it all."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from bot.emulator import Upload
from bot.presentation import charts
from bot.presentation.daily import day_name
from bot.presentation.i18n import translator
from bot.services.stats import CHARTED
from bot.storage import open_storage
from tests.support.boards import button_data, buttons, isolated, moving_code, shown_moves
from tests.support.databases import disown_actions, stored_game
from tests.support.groups import GROUP
from tests.support.harness import User, eventually
from tests.support.pictures import decode_png, expected_colour

ARROWS = {"l": "⬅️", "r": "➡️", "u": "⬆️", "d": "⬇️"}


async def _play(user: User, database, moves: int) -> None:
    """`moves` taps that move on the player's running game, each redraw awaited."""
    board = await user.open_board()
    for _ in range(moves):
        await user.tap(board, ARROWS[moving_code(await stored_game(database, user.id, user.id))])


async def _play_daily(user: User) -> int:
    """Today's daily, one tap each way; the moves it made."""
    await user.send("/daily", replies=2)
    board = user.board()
    moved = 0
    for arrow in ARROWS.values():
        toast, _ = await user.tap(board, arrow, edit=False)
        moved += toast["text"] is None
    await eventually(lambda: shown_moves(user.board().text) == moved)
    return moved


async def _games(database, user_id: int):
    store = await open_storage(database)
    try:
        records = await store.records(user_id)
        scores = await store.played_scores(user_id, CHARTED)
    finally:
        await store.close()
    return records, scores


async def test_stats_show_the_games_the_dailies_and_a_chart(api, bot, database):
    anna = User(api, 101, "Anna")
    (empty,) = await anna.send("/stats")
    assert empty.startswith("No statistics yet.") and "/new" in empty
    assert not api.find_requests("sendPhoto")

    await _play(anna, database, 3)
    daily_moves = await _play_daily(anna)
    mark = api.mark()
    (text,) = await anna.send("/stats")
    records, scores = await _games(database, anna.id)
    lines = text.split("\n")
    assert lines[0] == "📊 Your statistics"
    assert "Classic 4×4" in lines and "Large 5×5" not in text
    played = records[4].games_played
    assert played == 2  # the game in the chat and the daily: both on 4×4
    best = max(game.score for game in scores)
    assert f"Best score: {translator('en').number(best)}" in lines
    assert f"2 games played · {records[4].games_won} won · win rate 0%" in lines
    assert f"{3 + daily_moves} moves, " in text and "of play in total" in text
    assert "🔥 Daily streak: 1 day in a row. Longest: 1 day." in lines
    today = day_name(translator("en"), datetime.now(UTC).date().isoformat())
    assert f"Last daily: #1 of 1 player (Classic 4×4, {today})" in lines

    sent = await api.wait_request("sendPhoto", after=mark, chat_id=anna.id)
    assert isinstance(sent.params["photo"], Upload)
    chart = decode_png(sent.params["photo"].data)
    assert chart.size == (charts.WIDTH, charts.HEIGHT)
    charted = tuple((game.score, game.highest) for game in scores)
    assert len(charted) == 2
    for (left, top, right, bottom), (_, highest) in zip(
        charts.bar_boxes(charted), charted, strict=True
    ):
        assert chart.getpixel(((left + right) // 2, (top + bottom) // 2)) == expected_colour(
            highest
        )

    # The same figures again: the same picture, sent by its file id.
    again = api.mark()
    await anna.send("/stats")
    resent = await api.wait_request("sendPhoto", after=again, chat_id=anna.id)
    assert resent.params["photo"] == sent.result["photo"][-1]["file_id"]


async def test_in_a_group_stats_is_one_line_and_a_link_to_the_rest(api, bot, club, database):
    anna, bob = club
    await _play(anna, database, 2)
    mark = api.mark()
    (line,) = await anna.send("/stats", chat_id=GROUP)
    _, scores = await _games(database, anna.id)
    best = translator("en").number(scores[0].score)
    assert line == f"{isolated('Anna')}: 1 game played · best score {best}"
    link = button_data(anna.board(GROUP), "📊")
    assert link == "https://t.me/play2048_bot?start=stats"
    assert list(buttons(anna.board(GROUP))) == ["📊 All your statistics"]
    (dutch,) = await bob.send("/stats", chat_id=GROUP)
    assert dutch == f"{isolated('Bob')} heeft nog geen spel gespeeld."
    assert not api.find_requests("sendPhoto", after=mark)  # no chart in the group

    # The link opens the private chat on `/start stats`: everything, and the chart.
    (full,) = await anna.send("/start stats")
    assert full.startswith("📊 Your statistics") and "1 game played" in full
    assert "No daily streak yet. /daily starts today’s." in full
    await api.wait_request("sendPhoto", after=mark, chat_id=anna.id)


async def test_a_finished_daily_says_the_streak(api, bot, database):
    anna = User(api, 101, "Anna")
    await _play_daily(anna)
    store = await open_storage(database)
    try:  # no tile can move any more: the attempt is over
        daily = await store.daily_of(datetime.now(UTC).date().isoformat(), 4)
        assert daily is not None
        entry = await store.daily_entry(daily.id, anna.id)
        assert entry is not None
        stuck = replace(entry.game, board=(2, 4, 2, 4, 4, 2, 4, 2) * 2)
        assert stuck.over
        async with store.transaction():
            await store.update_game(entry, stuck, 0.0, played_counted=True, action="left")
            await disown_actions(store, entry.id)
    finally:
        await store.close()
    result, _ = await anna.send("/daily", replies=2)
    lines = result.split("\n")
    assert "No tile can move in your daily. Undo a move to play on" in lines[1]
    assert "🔥 Daily streak: 1 day in a row. Longest: 1 day." in lines
