"""What players read of the daily's reminder: the reminder itself, and switching it."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import codecs
from bot.presentation.daily import day_name
from bot.presentation.i18n import Translator
from bot.presentation.render import daily_button


def reminder(t: Translator, day: str) -> str:
    """The one message a day: the daily is open, and how to stop these messages."""
    return "\n".join(
        [
            t._(
                "📅 The {day} daily is open: the same tiles for everyone, one attempt.",
                day=day_name(t, day),
            ),
            t._("/daily remind off stops these reminders."),
        ]
    )


def reminder_keyboard(t: Translator) -> InlineKeyboardMarkup:
    """Play today's daily, or stop the reminders, from the reminder itself."""
    stop = InlineKeyboardButton("🔕 " + t._("Stop"), callback_data=codecs.remind_off_button())
    return InlineKeyboardMarkup([[daily_button(t), stop]])


def switched_on(t: Translator, seconds_left: float) -> str:
    return t._(
        "🔔 Reminder on: I'll message you when each daily opens at midnight (UTC). The next "
        "one opens in {time}. /daily remind off stops it.",
        time=t.countdown(seconds_left),
    )


def switched_off(t: Translator, *, was_on: bool) -> str:
    if was_on:
        return t._("🔕 Reminder off: no more messages when a daily opens.")
    return t._("You have no reminder on. /daily remind sends you one when each daily opens.")


def offer(t: Translator) -> str:
    """Under a finished daily: how to hear of the next one."""
    return t._("🔔 /daily remind sends you a message when the next daily opens.")


def stopped_toast(t: Translator) -> str:
    return t._("🔕 Reminder off.")


def in_private(t: Translator) -> str:
    return t._("Reminders come in our private chat: send /daily remind there.")


def usage(t: Translator) -> str:
    return t._("/daily remind switches the daily's reminder on, /daily remind off switches it off.")
