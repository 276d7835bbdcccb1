"""The daily puzzle on Telegram: /daily, its button, and its deep link.

The daily is played in the player's private chat; asked for in a group, the answer is a link
that opens it there.
"""

from __future__ import annotations

from telegram import Update

from bot.chat.announcements import send_owed
from bot.chat.boards import send_board
from bot.chat.posts import answer, reply, update_key
from bot.codecs import parse_daily_args, parse_daily_button
from bot.handlers.commands import anonymous_player
from bot.handlers.context import BotContext
from bot.presentation import daily as texts
from bot.presentation import group_daily as group_texts
from bot.presentation import reminders as reminder_texts
from bot.presentation.i18n import Translator
from bot.services.daily import DAY_SECONDS, DailyPlay, DailyStatus, day_of
from bot.services.group_daily import Switch

TOP = 10  # the world's and a group's leaders shown


async def _text(context: BotContext, t: Translator, played: DailyPlay) -> str:
    daily = played.daily
    assert daily is not None
    left = daily.ends_at - context.runtime.daily.now()
    if played.status is DailyStatus.STARTED:
        return texts.started(t, daily, left)
    if played.status is DailyStatus.RESUMED:
        return texts.resumed(t, daily, left)
    assert played.entry is not None
    rank = await context.runtime.storage.daily_rank(daily.id, played.entry.owner_id)
    streaks = await context.runtime.stats.streaks(played.entry.owner_id)
    text = texts.finished(t, daily, played.entry, left, rank, streaks)
    # Done for today: how to hear of tomorrow's, unless the player will already.
    if await context.runtime.storage.reminded_day(played.entry.owner_id) is None:
        text += "\n" + reminder_texts.offer(t)
    return text


async def _show(update: Update, context: BotContext, played: DailyPlay) -> None:
    """The daily's line, then its board: to play on, or to see how it ended."""
    audience = context.audience
    t = audience.for_chat
    reply(context.application, update, await _text(context, t, played))
    assert played.entry is not None
    send_board(context.application, update, played.entry, t, audience.player.view)


def _link(context: BotContext, size: int) -> str:
    """The link to today's daily of this size, which opens it in the player's private chat."""
    day, _ = day_of(context.runtime.daily.now())
    return texts.daily_link(context.bot.username, day, size)


async def daily(update: Update, context: BotContext) -> None:
    """`/daily [size]`: start or resume today's daily of that size; `/daily top [size]`: its
    rankings. In a group: the group's standings and a link to play in private."""
    audience, runtime = context.audience, context.runtime
    t = audience.for_chat
    ask = parse_daily_args(context.args or [])
    if ask is None:
        reply(
            context.application,
            update,
            t._(
                "Play today's daily with /daily, or pick a board size: /daily 5 or /daily 6. "
                "/daily top shows the rankings."
            ),
        )
        return
    if ask.switch is not None:
        await _switch(update, context, ask.switch)
    elif ask.top:
        reply(context.application, update, await _world(context, t, ask.size))
    elif audience.as_group:
        await anonymous_player(update, context)
    elif audience.in_group:
        keyboard = texts.daily_link_keyboard(t, _link(context, ask.size))
        text = texts.in_private(t)
        daily = await runtime.storage.daily_of(day_of(runtime.daily.now())[0], ask.size)
        if daily is not None:
            standings = await runtime.storage.daily_group_standings(daily.id, audience.chat_id)
            user = audience.player.user_id
            text = texts.group_ranking(t, standings, user, TOP) + "\n\n" + text
        reply(context.application, update, text, reply_markup=keyboard)
    else:
        await _show(update, context, await runtime.daily.play(audience.player.user_id, ask.size))


_SWITCHED = {
    Switch.ON: group_texts.switched_on,
    Switch.OFF: group_texts.switched_off,
    Switch.ALREADY_ON: group_texts.already_on,
    Switch.ALREADY_OFF: group_texts.already_off,
}


async def _switch(update: Update, context: BotContext, on: bool) -> None:
    """`/daily on` or `/daily off` in a group, by one of its admins: the group's daily
    message, every day; switched on, today's follows at once."""
    audience, runtime = context.audience, context.runtime
    t = audience.for_chat
    if not audience.in_group:
        reply(context.application, update, group_texts.groups_only(t))
        return
    if not await context.speaks_for_group(update.effective_message):
        reply(context.application, update, group_texts.admins_only(t))
        return
    switched = await runtime.group_daily.switch(
        audience.chat_id, on, t.language, update_key(update)
    )
    reply(context.application, update, _SWITCHED[switched](t))
    await send_owed(context.bot, runtime)


async def _world(context: BotContext, t: Translator, size: int) -> str:
    """Today's world top and the asker's place, then yesterday's final results."""
    storage, now = context.runtime.storage, context.runtime.daily.now()
    today = await storage.daily_of(day_of(now)[0], size)
    top, rank = [], None
    if today is not None:
        top = await storage.daily_top(today.id, TOP)
        rank = await storage.daily_rank(today.id, context.audience.player.user_id)
    before = await storage.daily_of(day_of(now - DAY_SECONDS)[0], size)
    yesterday = None if before is None else await storage.daily_top(before.id, TOP)
    return texts.world_ranking(t, size, today is not None, top, rank, yesterday)


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
