"""The daily puzzle, end to end: the same tiles for everyone, one attempt a day per size, its
commitment, the end of the day, its links and its buttons."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime, timedelta

import engine
from bot.config import MINIAPP_PATH
from bot.storage import open_storage
from tests.support.boards import button_data, buttons, grid, shown_moves
from tests.support.databases import count_rows, execute_sql
from tests.support.groups import GROUP
from tests.support.harness import User, eventually
from tests.support.miniapp import authorization, game_id, init_data

COMMITMENT = re.compile(r"\b[0-9a-f]{64}\b")


def _today() -> str:
    return datetime.now(UTC).date().isoformat()


def _game_id(board) -> str:
    return button_data(board, "⬅️").split(":")[1]


async def _end_the_day(database) -> None:
    """End every daily so far, as midnight does."""
    ended = time.time() - 1
    await execute_sql(database, "UPDATE dailies SET ends_at = ?", ended)
    await execute_sql(database, "UPDATE games SET closes_at = ? WHERE daily_id IS NOT NULL", ended)


async def _yesterday(database) -> str:
    """Make every daily so far yesterday's, ended: as if midnight had passed since."""
    yesterday = (datetime.now(UTC).date() - timedelta(days=1)).isoformat()
    await _end_the_day(database)
    await execute_sql(database, "UPDATE dailies SET day = ?", yesterday)
    return yesterday


async def test_everyone_plays_the_same_daily_once(api, bot, database):
    anna, bob = User(api, 101, "Anna"), User(api, 202, "Bob")
    intro, _ = await anna.send("/daily", replies=2)
    anna_board = anna.board()
    assert "Daily 2048" in intro and "Classic 4×4" in intro and "One attempt" in intro
    shown = COMMITMENT.findall(intro)
    assert len(shown) == 1
    (bob_intro, _) = await bob.send("/daily", replies=2)
    bob_board = bob.board()
    assert COMMITMENT.findall(bob_intro) == shown  # one daily, one commitment for everyone
    assert "📅" in anna_board.text and grid(anna_board) == grid(bob_board)
    assert not any(label.startswith("💡") for label in buttons(anna_board))  # no hints

    moved = 0
    for arrow in ("⬅️", "⬆️", "➡️", "⬇️"):
        anna_toast, _ = await anna.tap(anna_board, arrow, edit=False)
        bob_toast, _ = await bob.tap(bob_board, arrow, edit=False)
        assert anna_toast == bob_toast
        moved += anna_toast["text"] is None
    await eventually(
        lambda: shown_moves(anna.board().text) == shown_moves(bob.board().text) == moved
    )
    assert grid(anna.board()) == grid(bob.board())  # the same moves, the same tiles

    again, _ = await anna.send("/daily", replies=2)
    assert (
        "Back to your daily, right where you left off" in again
        and COMMITMENT.findall(again) == shown
    )
    assert _game_id(anna.board()) == _game_id(anna_board)  # the same attempt, not a new one
    assert await count_rows(database, "games", "daily_id IS NOT NULL") == 2
    assert await count_rows(database, "dailies") == 1


async def test_each_size_has_its_own_daily_and_the_commitment_holds(api, bot, database):
    anna = User(api, 101, "Anna")
    four, _ = await anna.send("/daily", replies=2)
    five, _ = await anna.send("/daily 5", replies=2)
    assert "Large 5×5" in five and "Large 5×5" in anna.board().text
    assert COMMITMENT.findall(four) != COMMITMENT.findall(five)
    await anna.send("/daily 6", replies=2)
    assert "Huge 6×6" in anna.board().text
    store = await open_storage(database)
    try:
        daily = await store.daily_of(_today(), 5)
    finally:
        await store.close()
    assert daily is not None and COMMITMENT.findall(five) == [daily.commitment]
    assert str(daily.seed) not in five and daily.salt not in five  # the secret stays secret
    (refused,) = await anna.send("/daily 7")
    assert "/daily 5 or /daily 6" in refused


async def test_a_tap_after_midnight_says_the_day_is_over(api, bot, database):
    anna = User(api, 101, "Anna")
    await anna.send("/daily", replies=2)
    board = anna.board()
    yesterdays = _game_id(board)
    await _yesterday(database)
    mark = api.mark()
    toast, _ = await anna.tap(board, "➡️", edit=False)
    assert toast["text"] == "This daily ended at midnight UTC. Your final score: 0."
    await api.wait_request(
        "editMessageText", after=mark, chat_id=anna.id, message_id=board.message_id
    )
    ended = api.stored_message(anna.id, board.message_id)
    assert "This daily has ended" in ended.text
    assert "⬅️" not in buttons(ended)  # frozen: nothing left to move

    # A new day: a new daily, a new attempt.
    fresh, _ = await anna.send("/daily", replies=2)
    assert "Everyone gets the same tiles today" in fresh
    assert _game_id(anna.board()) != yesterdays


async def test_old_and_forged_daily_links_are_refused_kindly(api, bot, database):
    anna = User(api, 101, "Anna")
    await anna.send("/daily", replies=2)
    yesterday = await _yesterday(database)
    (old,) = await anna.send(f"/start daily{yesterday.replace('-', '')}_4")
    assert "That daily is over. /daily starts today’s." in old and "Your result: 0 points" in old
    for forged in ("daily20991231_4", "dailyxyz", "daily20261202_9"):
        (refused,) = await anna.send(f"/start {forged}")
        assert refused == "This daily link doesn’t work. /daily starts today’s."


async def test_the_welcome_and_a_group_lead_to_the_daily(api, bot, club):
    anna, _ = club
    await anna.send("/start", replies=2)
    welcome = api.stored_message(
        anna.id, api.find_requests("sendMessage", chat_id=anna.id)[0].result["message_id"]
    )
    mark = api.mark()
    answer, _ = await anna.tap_data(welcome, button_data(welcome, "📅"))
    assert answer["text"] is None
    intro = await api.wait_request("sendMessage", after=mark, chat_id=anna.id)
    assert "Daily 2048" in api.stored_message(anna.id, intro.result["message_id"]).text
    await eventually(lambda: "📅" in anna.board().text)  # then the daily's board

    (in_group,) = await anna.send("/daily", chat_id=GROUP)
    assert "private chat" in in_group
    link = button_data(anna.board(GROUP), "📅")
    assert link == f"https://t.me/play2048_bot?start=daily{_today().replace('-', '')}_4"


async def test_the_daily_plays_in_the_mini_app_and_its_secret_stays_home(
    api, webbot, http, database
):
    anna = User(api, 101, "Anna")
    await anna.send("/daily", replies=2)
    board = anna.board()
    assert "👆 Swipe" in buttons(board)
    calls = f"{webbot.web_base}{MINIAPP_PATH}/api"
    signed_in = authorization(init_data(api.token, 101))
    async with http.post(f"{calls}/open", json={"game": game_id(board)}, headers=signed_in) as sent:
        opened = await sent.json()
    assert opened["hints"] is False and opened["board"]
    move = {"game": opened["game"], "seq": opened["seq"]}
    answers = [opened]
    for action in ("left", "right", "up", "down"):
        async with http.post(
            f"{calls}/move", json={**move, "action": action}, headers=signed_in
        ) as sent:
            answers.append(await sent.json())
        move["seq"] = answers[-1]["seq"]
    assert any(answer["status"] == "applied" for answer in answers[1:])
    store = await open_storage(database)
    try:
        daily = await store.daily_of(_today(), 4)
    finally:
        await store.close()
    assert daily is not None
    secrets = (str(daily.seed), daily.salt)
    chat = [message["text"] for message in api.messages(anna.id)]
    for secret in secrets:
        assert not any(secret in json.dumps(answer) for answer in answers)
        assert not any(secret in text for text in chat)


async def test_a_daily_record_waits_for_the_day_then_checks_out(api, bot, database):
    anna = User(api, 101, "Anna")
    await anna.send("/daily", replies=2)
    board = anna.board()
    for arrow in ("⬅️", "⬆️", "➡️", "⬇️"):
        await anna.tap(board, arrow, edit=False)
    (secret,) = await anna.send("/record")
    assert secret.startswith("Your daily is still running. Its seed is revealed when the day")
    await _end_the_day(database)
    mark = api.mark()
    api.send_text(anna.id, anna.id, "/record")
    sent = await api.wait_request("sendDocument", after=mark, chat_id=anna.id)
    document = api.stored_message(anna.id, sent.result["message_id"]).media["document"]
    assert document["file_name"].endswith(".json")
    data = json.loads(api.file_bytes(document["file_id"]))
    assert data["size"] == 4 and data["subject"] == _today()
    verdict = engine.verify(data)
    assert verdict.committed is True and verdict.holds
    store = await open_storage(database)
    try:
        daily = await store.daily_of(_today(), 4)
    finally:
        await store.close()
    assert daily is not None and data["commitment"] == daily.commitment
    assert data["seed"] == daily.seed and data["actions"]
    tampered = {**data, "actions": data["actions"][:-1]}
    assert not engine.verify(tampered).holds


async def _play(user: User, arrows: str) -> None:
    await user.send("/daily", replies=2)
    board = user.board()
    for arrow in arrows:
        await user.tap(board, {"l": "⬅️", "u": "⬆️", "r": "➡️", "d": "⬇️"}[arrow], edit=False)


async def test_rankings_world_group_and_yesterday(api, bot, database, club):
    anna, bob = club  # Anna plays in the group too, Bob (Dutch) only in private
    carl = User(api, 303, "Carl")
    await anna.send("/new 4", chat_id=GROUP)
    await _play(anna, "lurdlurd")
    await _play(bob, "lu")
    await _play(carl, "")  # started, never moved: not ranked
    store = await open_storage(database)
    try:
        daily = await store.daily_of(_today(), 4)
        assert daily is not None
        ranked = await store.daily_top(daily.id, 10)
    finally:
        await store.close()
    assert {s.user_id for s in ranked} == {anna.id, bob.id}
    assert [(-s.score, s.moves) for s in ranked] == sorted((-s.score, s.moves) for s in ranked)
    places = {s.user_id: s.rank for s in ranked}

    (top,) = await anna.send("/daily top")
    assert "Today’s daily worldwide" in top and "1. " in top and "2. " in top
    assert f"You’re #{places[anna.id]} of 2 players." in top
    (top,) = await bob.send("/daily top")
    assert f"Je staat op plaats {places[bob.id]} van 2 spelers." in top
    (in_group,) = await anna.send("/daily", chat_id=GROUP)
    assert "Today’s daily in this group" in in_group
    assert "Anna" in in_group and "Bob" not in in_group  # Bob never played in the group

    await _yesterday(database)
    (after,) = await anna.send("/daily top")
    # Just after midnight, before anyone opens today's: yesterday's results are there.
    today, yesterday = after.split("Yesterday’s final results")
    assert "Nobody has played today’s daily yet. /daily starts it." in today
    assert "Anna" in yesterday and "Bob" in yesterday
    await _play(carl, "lr")
    (after,) = await anna.send("/daily top")
    today, yesterday = after.split("Yesterday’s final results")
    assert "Carl" in today and "Anna" not in today
    assert "Anna" in yesterday and "Bob" in yesterday
