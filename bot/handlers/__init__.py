"""Telegram update handlers, one module per concern; `register` wires them all up."""

from __future__ import annotations

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

from bot.handlers import bookkeeping, buttons, commands, errors, groups, sharing, throttling
from bot.presentation import callbacks

THROTTLING_GROUP = -2  # drops what is over budget before anything else runs
BOOKKEEPING_GROUP = -1  # runs before every handler of group 0


def _no_data(data: object) -> bool:
    """Matches no data at all; see `register`."""
    return False


def register(application: Application) -> None:
    application.add_handler(TypeHandler(Update, throttling.drop_excess), group=THROTTLING_GROUP)
    application.add_handler(TypeHandler(Update, bookkeeping.track), group=BOOKKEEPING_GROUP)
    # New messages only: editing an old message must not run its command (or chatter) again.
    new = filters.UpdateType.MESSAGE
    players_only = new & ~filters.SenderChat.ALL
    for command in commands.COMMANDS:
        only = players_only if command.plays else new
        application.add_handler(CommandHandler(command.name, command.handler, filters=only))
    playing = [command.name for command in commands.COMMANDS if command.plays]
    application.add_handler(
        CommandHandler(playing, commands.anonymous_player, filters=new & filters.SenderChat.ALL)
    )
    # python-telegram-bot tests a pattern only against non-empty data: a query with empty
    # data goes to the first pattern handler. Make that this one, so every parser below
    # only ever sees data its pattern matched.
    application.add_handler(CallbackQueryHandler(buttons.on_unknown_button, _no_data))
    application.add_handler(CallbackQueryHandler(buttons.on_game_button, callbacks.GAME_PATTERN))
    application.add_handler(CallbackQueryHandler(buttons.on_new_button, callbacks.NEW_PATTERN))
    application.add_handler(
        CallbackQueryHandler(buttons.on_language_button, callbacks.LANGUAGE_PATTERN)
    )
    application.add_handler(
        CallbackQueryHandler(buttons.on_current_button, callbacks.CURRENT_PATTERN)
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
