"""The daily puzzle on Telegram: /daily, its button, and its deep link.

The daily is played in the player's private chat; asked for in a group, the answer is a link
that opens it there.
"""

from __future__ import annotations

from telegram import Update

import engine
from bot.chat.boards import send_board
from bot.chat.posts import answer, reply
from bot.codecs import parse_daily_button, parse_size
from bot.handlers.context import BotContext
from bot.presentation import daily as texts
from bot.presentation.i18n import Translator
from bot.services.daily import DailyPlay, DailyStatus, day_of


def _text(t: Translator, played: DailyPlay, now: float) -> str:
    assert played.daily is not None
    left = played.daily.ends_at - now
    if played.status is DailyStatus.STARTED:
        return texts.started(t, played.daily, left)
    if played.status is DailyStatus.RESUMED:
        return texts.resumed(t, played.daily, left)
    assert played.entry is not None
    return texts.finished(t, played.daily, played.entry, left)


async def _show(update: Update, context: BotContext, played: DailyPlay) -> None:
    """The daily's line, then its board: to play on, or to see how it ended."""
    audience, runtime = context.audience, context.runtime
    t = audience.for_chat
    reply(context.application, update, _text(t, played, runtime.daily.now()))
    assert played.entry is not None
    send_board(context.application, update, played.entry, t, audience.player.view)


def _link(context: BotContext, size: int) -> str:
    """The link to today's daily of this size, which opens it in the player's private chat."""
    day, _ = day_of(context.runtime.daily.now())
    return texts.daily_link(context.bot.username, day, size)


async def daily(update: Update, context: BotContext) -> None:
    """`/daily`, `/daily 5`, `/daily 6`: start or resume today's daily of that size."""
    audience, runtime = context.audience, context.runtime
    t = audience.for_chat
    args = context.args or []
    size = engine.SIZES[0] if not args else parse_size(args[0]) if len(args) == 1 else None
    if size is None:
        reply(
            context.application,
            update,
            t._("Play today's daily with /daily, or pick a board size: /daily 5 or /daily 6."),
        )
        return
    if audience.in_group:
        keyboard = texts.daily_link_keyboard(t, _link(context, size))
        reply(context.application, update, texts.in_private(t), reply_markup=keyboard)
        return
    await _show(update, context, await runtime.daily.play(audience.player.user_id, size))


async def join(update: Update, context: BotContext) -> None:
    """`/start daily…` from a daily's link: today's is played, an older one's result shown."""
    assert context.args
    audience, runtime = context.audience, context.runtime
    t = audience.for_chat
    played = await runtime.daily.open_link(context.args[0], audience.player.user_id)
    if played.status is DailyStatus.INVALID:
        reply(context.application, update, texts.invalid(t))
    elif played.status is DailyStatus.OLD:
        reply(context.application, update, texts.old(t, played.daily, played.entry))
    else:
        await _show(update, context, played)


async def on_daily_button(update: Update, context: BotContext) -> None:
    """📅 under a board or the welcome: the daily in private; from a group, its link."""
    query = update.callback_query
    assert query is not None
    size = parse_daily_button(query.data)
    if context.audience.in_group:  # Telegram opens the private chat on the daily's link
        await answer(query, url=_link(context, size))
        return
    await answer(query)
    await _show(update, context, await context.runtime.daily.play(query.from_user.id, size))
