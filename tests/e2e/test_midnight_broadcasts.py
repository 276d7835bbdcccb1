"""Midnight's broadcasts, end to end: dozens of groups with the daily on and players with its
reminder on, the clock past midnight, and Telegram's bot-wide limit (about 30 messages a
second in all chats) enforced by the emulator. Unpaced, the groups' final rankings, winners
and new cards and the reminders would go out together, above that limit; the bot's one
broadcast budget (bot/transport/broadcasts.py) spreads them out, and not one meets a 429.
"""

from __future__ import annotations

import time

from bot.emulator import BOT_WIDE_LIMITS, FakeBotApi, RecordedRequest
from tests.support.harness import User

GROUPS = [-1_000_100 - n for n in range(40)]  # three messages each at midnight
REMINDED = range(5001, 5021)
OPEN = "is open: the same tiles for everyone"
CARD = "<b>Daily 2048</b>"


async def _groups_with_the_daily_on(api: FakeBotApi) -> dict[int, RecordedRequest]:
    """`GROUPS` with the daily on, each told so by an admin: their cards, by chat."""
    start = api.mark()
    for n, chat_id in enumerate(GROUPS):  # an admin each: a player's commands are throttled
        admin = User(api, 101 + n, f"Admin {n}")
        api.add_group(chat_id, f"Club {n}", admins={admin.id})
        api.send_text(admin.id, chat_id, "/daily on")
    return {
        chat_id: await api.wait_request(
            "sendMessage", after=start, chat_id=chat_id, text=lambda t: CARD in t
        )
        for chat_id in GROUPS
    }


async def test_every_group_and_reminder_goes_out_at_midnight_inside_the_bot_wide_limit(
    api, daybot, clock
):
    start = api.mark()
    cards = await _groups_with_the_daily_on(api)
    players = [User(api, user_id, f"P{user_id}") for user_id in REMINDED]
    for player in players:
        api.send_text(player.id, player.id, "/daily remind")
    for player in players:
        await api.wait_request(
            "sendMessage", after=start, chat_id=player.id, text=lambda t: "Reminder on" in t
        )

    api.flood.on(BOT_WIDE_LIMITS)
    mark = api.mark()
    clock.next_day()
    for chat_id, card in cards.items():
        await api.wait_request(
            "editMessageText",
            after=mark,
            chat_id=chat_id,
            message_id=card.result["message_id"],
            text=lambda t: "Final standings" in t,
        )
        await api.wait_request(
            "sendMessage", after=mark, chat_id=chat_id, text=lambda t: "nobody here played" in t
        )
        await api.wait_request("sendMessage", after=mark, chat_id=chat_id, text=lambda t: CARD in t)
    for player in players:
        await api.wait_request(
            "sendMessage", after=mark, chat_id=player.id, text=lambda t: OPEN in t
        )

    assert [r.summary() for r in api.requests if r.error_code == 429] == []
    midnight = [r for r in api.log.since(mark) if r.ok and r.method != "getUpdates"]
    assert len(midnight) == 3 * len(GROUPS) + len(players)  # each once


async def test_a_challenge_at_midnight_is_answered_before_the_nights_backlog(api, daybot, clock):
    """A /challenge while midnight's broadcasts are going out: its card is a reply, so it
    goes first and outside the broadcast budget, not after the groups' dozens of messages."""
    await _groups_with_the_daily_on(api)
    race, anna = -2_000_001, User(api, 901, "Anna")
    api.add_group(race, "Race", admins={anna.id})

    api.flood.on(BOT_WIDE_LIMITS)
    mark = api.mark()
    clock.next_day()
    await api.wait_request("editMessageText", after=mark, text=lambda t: "Final standings" in t)
    api.send_text(anna.id, race, "/challenge")
    card = await api.wait_request("sendMessage", after=mark, chat_id=race)
    for chat_id in GROUPS:  # the night's backlog, all of it sent in the end
        await api.wait_request("sendMessage", after=mark, chat_id=chat_id, text=lambda t: CARD in t)
    night = [
        r
        for r in api.log.since(mark)
        if r.ok and r.method != "getUpdates" and r.params.get("chat_id") != race
    ]
    after_card = [r for r in night if r.time > card.time]
    assert len(night) == 3 * len(GROUPS)
    assert len(after_card) > len(GROUPS), "the card waited for most of the night's backlog"
    assert [r.summary() for r in api.requests if r.error_code == 429] == []


async def test_a_process_held_up_at_midnight_does_not_send_the_slots_it_missed_at_once(
    api, daybot, clock
):
    """The bot's process stops for a second while midnight's broadcasts go out (a starved
    CPU, a long garbage collection): every slot of that second has passed when it wakes, and
    sending them all together would go past Telegram's bot-wide burst."""
    cards = await _groups_with_the_daily_on(api)

    api.flood.on(BOT_WIDE_LIMITS)
    mark = api.mark()
    clock.next_day()
    await api.wait_request("editMessageText", after=mark, text=lambda t: "Final standings" in t)
    time.sleep(1.0)  # the whole process held up: the bot, and the emulator beside it
    for chat_id in cards:
        await api.wait_request("sendMessage", after=mark, chat_id=chat_id, text=lambda t: CARD in t)

    assert [r.summary() for r in api.requests if r.error_code == 429] == []
    midnight = [r for r in api.log.since(mark) if r.ok and r.method != "getUpdates"]
    assert len(midnight) == 3 * len(GROUPS)
