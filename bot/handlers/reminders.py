"""The daily's reminder on Telegram: `/daily remind`, `/daily remind off`, and the reminder's
🔕 button.

The reminder is sent into the player's private chat, so it is switched on there; asked in a
group, the answer says where.
"""

from __future__ import annotations

from telegram import Update

from bot.chat.posts import KeyboardSwap, answer, edit_tapped, reply
from bot.codecs import parse_remind_args
from bot.handlers.context import BotContext
from bot.presentation import reminders as texts
from bot.presentation.render import daily_keyboard


async def remind(update: Update, context: BotContext) -> None:
    """`/daily remind`: a message when each next daily opens; `/daily remind off`: none."""
    audience, reminders = context.audience, context.runtime.reminders
    t = audience.for_chat
    on = parse_remind_args(context.args or [])
    if on is None:
        text = texts.usage(t)
    elif audience.in_group:
        text = texts.in_private(t)
    elif on:
        text = texts.switched_on(t, await reminders.switch_on(audience.player.user_id))
    else:
        text = texts.switched_off(t, was_on=await reminders.switch_off(audience.player.user_id))
    reply(context.application, update, text)


async def on_remind_off_button(update: Update, context: BotContext) -> None:
    """🔕 under a reminder: no more reminders, and the reminder keeps its 📅 alone."""
    query = update.callback_query
    assert query is not None
    await context.runtime.reminders.switch_off(query.from_user.id)
    audience = context.audience
    await answer(query, texts.stopped_toast(audience.for_sender))
    keyboard = KeyboardSwap(query, daily_keyboard(audience.for_chat))
    edit_tapped(context.application, query, keyboard)
