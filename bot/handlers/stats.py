"""`/stats`: a player's statistics, as text and a chart, in their private chat.

In a group the answer is the asker's one line and a link that opens the rest in private,
where the link's `/start stats` shows it all.
"""

from __future__ import annotations

from telegram import Update

from bot.chat.pictures import post_chart
from bot.chat.posts import reply
from bot.handlers.context import BotContext
from bot.presentation import stats as texts
from bot.presentation.names import player_name


async def stats(update: Update, context: BotContext) -> None:
    """`/stats`: everything in private; the asker's line and a link to it in a group."""
    if context.audience.in_group:
        await _in_group(update, context)
    else:
        await show(update, context)


async def show(update: Update, context: BotContext) -> None:
    """The full statistics, then the chart of the latest scores (none before a first game)."""
    audience = context.audience
    t, player = audience.for_chat, audience.player
    figures = await context.runtime.stats.of(player.user_id)
    reply(context.application, update, texts.stats_text(t, figures))
    if figures.recent:
        post_chart(context.application, update, player, t, figures)


async def _in_group(update: Update, context: BotContext) -> None:
    audience = context.audience
    t, player = audience.for_chat, audience.player
    figures = await context.runtime.stats.of(player.user_id)
    keyboard = texts.stats_link_keyboard(t, texts.stats_link(context.bot.username))
    line = texts.group_line(t, player_name(t, player.name, player.user_id), figures)
    reply(context.application, update, line, reply_markup=keyboard)
