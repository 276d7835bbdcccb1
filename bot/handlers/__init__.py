"""Telegram's updates in: one callback per kind of update, each in the module of its concern.

`register` is the one table of what runs for which update; handler modules import no other
handler module, only the typed context (context.py), and send through bot/chat/.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import codecs
from bot.handlers import (
    bookkeeping,
    buttons,
    challenges,
    commands,
    daily,
    errors,
    groups,
    records,
    reminders,
    reviews,
    sharing,
    stats,
    throttling,
)
from bot.handlers.context import BotContext
from bot.presentation.menus import MENU

THROTTLING_GROUP = -2  # drops what is over budget before anything else runs
BOOKKEEPING_GROUP = -1  # runs before every handler of group 0
Handler = Callable[[Update, BotContext], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Command:
    """A slash command and its handler; its menu line is in bot/presentation/menus.py."""

    name: str
    handler: Handler
    # Whether it needs to know who is playing: an anonymous admin cannot use it.
    plays: bool = False


async def start(update: Update, context: BotContext) -> None:
    """`/start`, or a deep link's `/start <payload>` in private: a daily, the statistics, a
    duel, else a challenge.

    `inline` is where inline mode sends someone who has not started the bot yet.
    """
    payload = context.args[0] if context.args and not context.audience.in_group else None
    if payload is not None and codecs.is_daily_payload(payload):
        await daily.join(update, context)
    elif payload == codecs.STATS_PAYLOAD:
        await stats.show(update, context)
    elif payload is not None and payload.startswith("d"):
        await sharing.join_duel(update, context)
    elif payload is not None and payload != "inline":
        await challenges.join(update, context)
    else:
        await commands.start(update, context)


async def daily_command(update: Update, context: BotContext) -> None:
    """`/daily remind …`: the daily's reminder; any other `/daily`: the daily itself.

    Not a playing command as a whole: an anonymous admin switches the group's daily on and
    off (`/daily on`), but plays no daily and gets no reminder."""
    if codecs.asks_reminder(context.args or []):
        handler = commands.anonymous_player if context.audience.as_group else reminders.remind
        await handler(update, context)
    else:
        await daily.daily(update, context)


# In the order of the menus.
COMMANDS: tuple[Command, ...] = (
    Command("start", start, plays=True),
    Command("new", commands.new, plays=True),
    Command("daily", daily_command),
    Command("rules", commands.rules),
    Command("tips", commands.tips),
    Command("best", commands.best),
    Command("stats", stats.stats, plays=True),
    Command("challenge", challenges.challenge),
    Command("share", sharing.share, plays=True),
    Command("replay", sharing.replay, plays=True),
    Command("record", records.record, plays=True),
    Command("review", reviews.review, plays=True),
    Command("view", commands.view, plays=True),
    Command("language", commands.language),
    Command("help", commands.help_command),
)


def _no_data(data: object) -> bool:
    """Matches no data at all; see `register`."""
    return False


def register(application: Application) -> None:
    assert [command.name for command in COMMANDS] == [line.name for line in MENU]
    application.add_handler(TypeHandler(Update, throttling.drop_excess), group=THROTTLING_GROUP)
    application.add_handler(TypeHandler(Update, bookkeeping.track), group=BOOKKEEPING_GROUP)
    # New messages only: editing an old message must not run its command (or chatter) again.
    new = filters.UpdateType.MESSAGE
    players_only = new & ~filters.SenderChat.ALL
    for command in COMMANDS:
        only = players_only if command.plays else new
        application.add_handler(CommandHandler(command.name, command.handler, filters=only))
    playing = [command.name for command in COMMANDS if command.plays]
    application.add_handler(
        CommandHandler(playing, commands.anonymous_player, filters=new & filters.SenderChat.ALL)
    )
    # python-telegram-bot tests a pattern only against non-empty data: a query with empty
    # data goes to the first pattern handler. Make that this one, so every parser below
    # only ever sees data its pattern matched.
    application.add_handler(CallbackQueryHandler(buttons.on_unknown_button, _no_data))
    application.add_handler(CallbackQueryHandler(buttons.on_game_button, codecs.GAME_PATTERN))
    application.add_handler(CallbackQueryHandler(buttons.on_new_button, codecs.NEW_PATTERN))
    application.add_handler(
        CallbackQueryHandler(buttons.on_language_button, codecs.LANGUAGE_PATTERN)
    )
    application.add_handler(CallbackQueryHandler(buttons.on_current_button, codecs.CURRENT_PATTERN))
    application.add_handler(CallbackQueryHandler(daily.on_daily_button, codecs.DAILY_PATTERN))
    application.add_handler(CallbackQueryHandler(reviews.on_review_button, codecs.REVIEW_PATTERN))
    application.add_handler(
        CallbackQueryHandler(reminders.on_remind_off_button, codecs.REMIND_OFF_PATTERN)
    )
    application.add_handler(CallbackQueryHandler(buttons.on_unknown_button))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, groups.migrated))
    private = new & filters.ChatType.PRIVATE
    application.add_handler(MessageHandler(private & filters.COMMAND, commands.unknown_command))
    # A message a player sent "via @bot" (a shared card) is theirs to post, not chatter.
    application.add_handler(
        MessageHandler(private & ~filters.COMMAND & ~filters.VIA_BOT, commands.chatter)
    )
    application.add_handler(InlineQueryHandler(sharing.inline_query))
    application.add_error_handler(errors.on_error)
