"""The daily in groups, end to end: switched on by an admin only, one message a day with the
group's standings and the day's commitment, kept up as members finish, and at the day's end
its final ranking and one winner, after a restart past midnight and with two processes too.

The day turns on the daily's clock (tests/support/daily.py), moved past midnight by the test.
"""

from __future__ import annotations

import re
from datetime import date

from bot.config import TELEGRAM_PACE, Webhook
from bot.emulator import StoredMessage
from bot.models import Daily
from bot.storage import open_storage
from tests.support.boards import buttons, isolated
from tests.support.daily import (
    catch_up_runs,
    play_daily_to_the_end,
    stored_daily,
)
from tests.support.databases import count_rows
from tests.support.groups import GROUP
from tests.support.harness import RunningBot, User
from tests.support.processes import free_port

COMMITMENT = re.compile(r"\b[0-9a-f]{64}\b")


def day_messages(api, chat_id: int = GROUP) -> list[StoredMessage]:
    """The daily's messages the bot has in the group, oldest first."""
    return [
        api.stored_message(chat_id, m["message_id"])
        for m in api.messages(chat_id)
        if m["from"]["id"] == api.bot_id and "Daily 2048" in m.get("text", "")
    ]


def winners(api, chat_id: int = GROUP) -> list[str]:
    own = [m for m in api.messages(chat_id) if m["from"]["id"] == api.bot_id]
    return [m["text"] for m in own if " daily in this group with " in m.get("text", "")]


async def switch_on(api, anna: User) -> StoredMessage:
    """Anna, an admin, switches the group's daily on: its answer, then today's message."""
    said, shown = await anna.send("/daily on", chat_id=GROUP, replies=2)
    assert said.startswith("The daily is on in this group")
    (card,) = day_messages(api)
    assert card.text == shown
    return card


async def test_only_an_admin_switches_the_daily_on_and_it_is_off_by_default(
    api, daybot, club, database, clock
):
    anna, bob = club
    await anna.send("/new 4", chat_id=GROUP)  # the group has a player, and no daily
    (refused,) = await bob.send("/daily on", chat_id=GROUP)
    assert refused == "Alleen beheerders van de groep kunnen de dagpuzzel aan- of uitzetten."
    (in_private,) = await anna.send("/daily on")
    assert in_private == "/daily on and /daily off only work in groups. Send them there."
    clock.next_day()
    await catch_up_runs(daybot)
    assert day_messages(api) == []
    assert await count_rows(database, "chats", "daily_on = 1") == 0
    assert await count_rows(database, "dailies") == 0  # no day's seed drawn for nobody

    await switch_on(api, anna)
    (again,) = await anna.send("/daily on", chat_id=GROUP)
    assert again == "The daily is already on in this group. /daily off stops it."
    assert len(day_messages(api)) == 1
    (off,) = await anna.send("/daily off", chat_id=GROUP)
    assert off.startswith("The daily is off in this group")
    clock.next_day()
    await catch_up_runs(daybot)
    assert len(day_messages(api)) == 1, "a group that switched it off got another day"
    assert winners(api) == []


async def test_an_anonymous_admin_switches_the_daily_but_plays_none(api, daybot, club, database):
    """Writing as the group, an admin's account is hidden: /daily on and off still work, as
    /language does, but the daily itself and its reminder need a player."""
    anna, _ = club

    async def as_group(text: str) -> str:
        mark = api.mark()
        api.send_text(anna.id, GROUP, text, as_group=True)
        return (await api.wait_request("sendMessage", chat_id=GROUP, after=mark)).params["text"]

    mark = api.mark()
    assert (await as_group("/daily on")).startswith("The daily is on in this group")
    await api.wait_for(lambda r: "Daily 2048" in r.params.get("text", ""), after=mark)
    assert len(day_messages(api)) == 1
    assert await count_rows(database, "chats", "daily_on = 1") == 1
    for text in ("/daily", "/daily remind"):
        assert (await as_group(text)).startswith("Anonymous admins can’t play"), text
    assert await count_rows(database, "games") == 0
    assert await count_rows(database, "players", "reminded_day IS NOT NULL") == 0
    assert (await as_group("/daily off")).startswith("The daily is off in this group")
    assert await count_rows(database, "chats", "daily_on = 1") == 0


async def test_todays_message_at_once_then_edited_as_a_member_finishes(
    api, daybot, club, database, clock
):
    anna, _ = club
    await anna.send("/new 4", chat_id=GROUP)  # Anna plays in the group: she is a member
    card = await switch_on(api, anna)
    daily = await stored_daily(database, clock.day())
    assert daily is not None
    assert "Classic 4×4" in card.text
    assert COMMITMENT.findall(card.text) == [daily.commitment]
    assert str(daily.seed) not in card.text and daily.salt not in card.text
    assert "Nobody here has played today’s daily yet." in card.text
    link = f"https://t.me/play2048_bot?start=daily{daily.day.replace('-', '')}_4"
    assert buttons(card) == {"📅 Play the daily": link}

    mark = api.mark()
    await play_daily_to_the_end(api, anna, daily.seed)
    score = await _score(database, daily, anna.id)
    edited = await api.wait_request(
        "editMessageText",
        after=mark,
        chat_id=GROUP,
        message_id=card.message_id,
        text=lambda text: f"1. {isolated('Anna')}: {score:,} points ·" in text,
    )
    assert "1 player" in edited.params["text"]
    assert buttons(api.stored_message(GROUP, card.message_id)) == {"📅 Play the daily": link}


async def _score(database, daily: Daily, user_id: int) -> int:
    store = await open_storage(database)
    try:
        entry = await store.daily_entry(daily.id, user_id)
    finally:
        await store.close()
    assert entry is not None and entry.game.over
    return entry.game.score


async def _played(api, anna: User) -> None:
    """Anna plays in the group and makes moves in today's daily."""
    await anna.send("/new 4", chat_id=GROUP)
    await anna.send("/daily", replies=2)
    board = anna.board()
    for arrow in ("⬅️", "⬆️", "➡️", "⬇️"):
        await anna.tap(board, arrow, edit=False)


def assert_day_closed_once(api, card: StoredMessage, daily: Daily) -> None:
    """The day's message shows the final ranking with the seed; one winner said it."""
    (winner,) = winners(api)
    day = date.fromisoformat(daily.day).strftime("%b %-d")  # "Dec 2", as English writes it
    assert winner.startswith(f"📅 {isolated('Anna')} wins the {day} daily in this group")
    final = api.stored_message(GROUP, card.message_id)
    assert "Final standings" in final.text and f"1. {isolated('Anna')}" in final.text
    assert f"Seed {daily.seed} and salt {daily.salt}" in final.text
    assert not buttons(final), "the final ranking still offers the day's game"


async def test_the_day_ends_with_a_final_ranking_and_one_winner_and_the_next_begins(
    api, daybot, club, database, clock
):
    anna, _ = club
    card = await switch_on(api, anna)
    await _played(api, anna)
    daily = await stored_daily(database, clock.day())
    assert daily is not None
    mark = api.mark()
    clock.next_day()
    await api.wait_request(
        "editMessageText",
        after=mark,
        chat_id=GROUP,
        message_id=card.message_id,
        text=lambda text: "Final standings" in text,
    )
    await api.wait_request(
        "sendMessage", after=mark, chat_id=GROUP, text=lambda t: " daily in this group with " in t
    )
    tomorrow = await api.wait_request(
        "sendMessage", after=mark, chat_id=GROUP, text=lambda t: "<b>Daily 2048</b>" in t
    )
    await catch_up_runs(daybot)
    assert_day_closed_once(api, card, daily)
    new_day = await stored_daily(database, clock.day())
    assert new_day is not None and new_day.id != daily.id
    assert COMMITMENT.findall(tomorrow.params["text"]) == [new_day.commitment]
    assert len(day_messages(api)) == 2


async def test_a_restart_past_midnight_ends_the_day_once(api, daybot, club, database, clock):
    anna, _ = club
    card = await switch_on(api, anna)
    await _played(api, anna)
    daily = await stored_daily(database, clock.day())
    assert daily is not None
    await daybot.stop()
    clock.next_day(after=3600)  # the bot was away at midnight
    mark = api.mark()
    await daybot.start()
    await api.wait_request(
        "sendMessage", after=mark, chat_id=GROUP, text=lambda t: " daily in this group with " in t
    )
    await api.wait_request(
        "sendMessage", after=mark, chat_id=GROUP, text=lambda t: "<b>Daily 2048</b>" in t
    )
    await daybot.restart()
    await catch_up_runs(daybot)
    assert_day_closed_once(api, card, daily)
    assert len(day_messages(api)) == 2


async def test_two_processes_give_a_group_one_message_a_day_and_one_winner(api, postgres, clock):
    anna = User(api, 101, "Anna")
    api.add_group(GROUP, "Two", admins={anna.id})
    bots = []
    for _ in range(2):
        port = free_port()
        hook = Webhook("https://bot.example/telegram", "s3cret", port=port, listen="127.0.0.1")
        bots.append(
            (RunningBot(api, postgres, clock=clock, pace=TELEGRAM_PACE, webhook=hook), port)
        )
    try:
        for running, _ in bots:
            await running.start()
        api.webhook_targets = [f"http://127.0.0.1:{port}/telegram" for _, port in bots]
        card = await switch_on(api, anna)
        await _played(api, anna)
        daily = await stored_daily(postgres, clock.day())
        assert daily is not None
        mark = api.mark()
        clock.next_day()
        await api.wait_request(
            "sendMessage",
            after=mark,
            chat_id=GROUP,
            text=lambda t: " daily in this group with " in t,
        )
        await api.wait_request(
            "sendMessage", after=mark, chat_id=GROUP, text=lambda t: "<b>Daily 2048</b>" in t
        )
        for running, _ in bots:
            await catch_up_runs(running)
        assert_day_closed_once(api, card, daily)
        assert len(day_messages(api)) == 2
    finally:
        for running, _ in bots:
            await running.stop()
