"""The daily's reminder, end to end: `/daily remind` in private, one message when the next
daily opens, in the player's language, with the daily's button and a way to stop; off, a
block (403) and many processes.

Midnight is not waited for: the daily's clock (tests/support/daily.py) is moved a second past
the next midnight (UTC), and the test waits for the reminders' job to have looked.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from bot.config import Webhook
from bot.storage import open_storage
from tests.support.boards import button_data, buttons
from tests.support.daily import DayClock
from tests.support.databases import count_rows, disown_actions
from tests.support.harness import RunningBot, User, eventually
from tests.support.processes import PUBLIC_URL, SECRET, free_port

OPEN = "is open: the same tiles for everyone"
OFFER = "/daily remind sends you a message when each daily opens"
LOCKED = (2, 4, 2, 4, 4, 2, 4, 2) * 2  # full, with no two equal neighbours: no move left


@pytest.fixture
async def bot(api, database, clock):
    """The bot, its daily and its reminders on the test's clock."""
    running = RunningBot(api, database, clock=clock)
    await running.start()
    yield running
    await running.stop()


async def _looks(bot: RunningBot, runs: int = 2) -> None:
    """Wait until the reminders' job and the outbox's catch-up have each run `runs` more
    times (side by side): whatever they would send by then has been queued."""
    assert bot.application.job_queue is not None

    async def turns(name: str) -> None:
        (job,) = bot.application.job_queue.get_jobs_by_name(name)
        for _ in range(runs):
            due = job.next_t
            await eventually(lambda due=due: job.next_t != due)

    await asyncio.gather(turns("daily-reminders"), turns("catch-up"))


async def _finish_daily(database, user_id: int) -> None:
    """The player's 4×4 daily of today, played to its end (its board written, not played)."""
    store = await open_storage(database)
    try:
        daily = await store.daily_of(datetime.now(UTC).date().isoformat(), 4)
        assert daily is not None
        entry = await store.daily_entry(daily.id, user_id)
        assert entry is not None
        game = replace(entry.game, board=LOCKED)
        async with store.transaction():
            await store.update_game(
                entry, game, 0.0, played_counted=entry.played_counted, action="left"
            )
            await disown_actions(store, entry.id)
    finally:
        await store.close()


def _reminders(api, chat_id: int) -> list[str]:
    return [
        m.get("text", "")
        for m in api.messages(chat_id)
        if m["from"]["id"] == api.bot_id and OPEN in m.get("text", "")
    ]


async def test_a_reminder_goes_once_at_the_day_s_start_to_who_asked_for_it(
    api, bot, database, clock
):
    anna, bob, cleo = User(api, 101, "Anna"), User(api, 202, "Bob"), User(api, 303, "Cleo")
    (on,) = await anna.send("/daily remind")
    assert "Reminder on" in on and "midnight UTC" in on and "/daily remind off" in on
    await bob.send("/daily remind")
    (off,) = await bob.send("/daily remind off")
    assert "Reminder off" in off
    await cleo.send("/start", replies=2)  # plays, never asked for a reminder
    await _looks(bot)
    assert _reminders(api, anna.id) == []  # none for the daily already open

    clock.next_day()
    sent = await api.wait_request("sendMessage", chat_id=anna.id, text=lambda t: OPEN in t)
    reminder = api.stored_message(anna.id, sent.result["message_id"])
    month_day = datetime.fromtimestamp(clock(), UTC).strftime("%b %-d")  # the new day's
    assert f"The {month_day} daily is open" in reminder.text
    assert "/daily remind off" in reminder.text
    assert button_data(reminder, "📅") == "daily:4" and "🔕 Stop reminders" in buttons(reminder)
    await _looks(bot)
    assert len(_reminders(api, anna.id)) == 1  # once, however many looks
    assert _reminders(api, bob.id) == [] and _reminders(api, cleo.id) == []

    # The reminder's 📅 opens the day's daily.
    mark = api.mark()
    await anna.tap(reminder, "📅", edit=False)
    await api.wait_request("sendMessage", after=mark, chat_id=anna.id, text=lambda t: "Daily" in t)


async def test_a_finished_daily_offers_the_reminder_until_it_is_on(api, bot, database):
    anna = User(api, 101, "Anna")
    (started, _) = await anna.send("/daily", replies=2)
    assert OFFER not in started  # while the daily is played, it is not in the way
    await _finish_daily(database, anna.id)
    (finished, _) = await anna.send("/daily", replies=2)
    assert (
        "No tile can move in your daily. Undo a move to play on" in finished and OFFER in finished
    )
    await anna.send("/daily remind")
    (again, _) = await anna.send("/daily", replies=2)
    assert "No tile can move in your daily. Undo a move to play on" in again and OFFER not in again


async def test_the_reminder_s_stop_button_ends_the_reminders(api, bot, database, clock):
    anna = User(api, 101, "Anna")
    await anna.send("/daily remind")
    clock.next_day()
    sent = await api.wait_request("sendMessage", chat_id=anna.id, text=lambda t: OPEN in t)
    reminder = api.stored_message(anna.id, sent.result["message_id"])
    toast, _ = await anna.tap(reminder, "🔕", edit=False)
    assert toast["text"] == "🔕 Reminder off."
    await api.wait_request("editMessageReplyMarkup", chat_id=anna.id)
    assert list(buttons(api.stored_message(anna.id, reminder.message_id))) == ["📅 Daily"]
    assert await count_rows(database, "players", "reminded_day IS NOT NULL") == 0

    clock.next_day()  # the next midnight: nothing
    await _looks(bot)
    assert len(_reminders(api, anna.id)) == 1


async def test_the_reminder_is_in_the_player_s_language(api, bot, database, clock):
    daan, lena = User(api, 404, "Daan", language="nl"), User(api, 505, "Lena", language="de")
    (aan,) = await daan.send("/daily remind")
    assert "Herinnering staat aan" in aan
    (an,) = await lena.send("/daily remind")
    assert "Erinnerung eingeschaltet" in an
    mark = api.mark()  # two chats: either reminder may go first
    clock.next_day()
    nl = await api.wait_request(
        "sendMessage", after=mark, chat_id=daan.id, text=lambda t: "dagpuzzel" in t
    )
    de = await api.wait_request(
        "sendMessage", after=mark, chat_id=lena.id, text=lambda t: "Tagesrätsel" in t
    )
    assert "staat klaar" in nl.params["text"] and "ist da" in de.params["text"]
    assert "🔕 Uitzetten" in buttons(api.stored_message(daan.id, nl.result["message_id"]))
    assert "🔕 Erinnerung aus" in buttons(api.stored_message(lena.id, de.result["message_id"]))


async def test_in_a_group_the_reminder_is_asked_for_in_private(api, bot, database):
    anna = User(api, 101, "Anna")
    api.add_group(-100555, "Club", admins={anna.id})
    (answer,) = await anna.send("/daily remind", chat_id=-100555)
    assert "/daily remind there" in answer
    (usage,) = await anna.send("/daily remind sometimes")
    assert "/daily remind off stops it." in usage
    assert await count_rows(database, "players", "reminded_day IS NOT NULL") == 0


async def test_a_player_who_blocked_the_bot_gets_no_more_reminders(
    api, bot, database, caplog, clock
):
    anna, cleo = User(api, 101, "Anna"), User(api, 303, "Cleo")
    await anna.send("/daily remind")
    await cleo.send("/daily remind")
    api.block_bot(cleo.id)
    mark = api.mark()
    with caplog.at_level(logging.INFO, logger="bot.chat.reminders"):
        clock.next_day()
        await api.wait_for(
            lambda r: r.error_code == 403 and r.params.get("chat_id") == cleo.id, after=mark
        )
        await api.wait_request("sendMessage", chat_id=anna.id, text=lambda t: OPEN in t)
        await eventually(lambda: "reminders switched off" in caplog.text)
        await _looks(bot)
    tried = api.find_requests("sendMessage", after=mark, ok=None, chat_id=cleo.id)
    assert len(tried) == 1, "a 403 is not tried again"
    said = [r for r in caplog.records if "reminders switched off" in r.getMessage()]
    assert len(said) == 1
    assert await count_rows(database, "players", "user_id = ? AND reminded_day IS NULL", cleo.id)

    api.block_bot(cleo.id, blocked=False)  # unblocked: still off until she asks again
    clock.next_day()
    await api.wait_request("sendMessage", after=mark, chat_id=anna.id, text=lambda t: OPEN in t)
    await _looks(bot)
    assert api.find_requests("sendMessage", after=mark, ok=None, chat_id=cleo.id) == tried


async def test_two_processes_send_each_player_one_reminder(api, postgres):
    """Two webhook processes on one database, one clock: 50 players who asked for the
    reminder each get the next day's reminder once, within Telegram's limits."""
    clock = DayClock()
    webhooks = [Webhook(PUBLIC_URL, SECRET, port=free_port(), listen="127.0.0.1") for _ in "ab"]
    pair = [RunningBot(api, postgres, webhook=webhook, clock=clock) for webhook in webhooks]
    await asyncio.gather(*(bot.start() for bot in pair))
    try:
        api.webhook_targets = [f"http://127.0.0.1:{w.port}/{w.path}" for w in webhooks]
        players = [User(api, 1000 + i, f"P{i}") for i in range(50)]
        for player in players:
            (on,) = await player.send("/daily remind")
            assert "Reminder on" in on
        mark = api.mark()
        clock.next_day()
        for player in players:  # in whatever order they go
            await api.wait_request(
                "sendMessage", after=mark, chat_id=player.id, text=lambda t: OPEN in t
            )
        await asyncio.gather(*(_looks(bot) for bot in pair))
        assert [len(_reminders(api, player.id)) for player in players] == [1] * len(players)
        assert [r for r in api.find_requests(after=mark, ok=False) if r.error_code == 429] == []
        today = clock.day()
        assert await count_rows(postgres, "players", "reminded_day = ?", today) == len(players)
        assert await count_rows(postgres, "outbox", "sent_at IS NULL") == 0
    finally:
        await asyncio.gather(*(bot.stop() for bot in pair))
