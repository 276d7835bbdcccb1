"""Telegram update handlers, one module per concern; `register` wires them all up."""

from __future__ import annotations

from telegram.ext import Application, CallbackQueryHandler, CommandHandler, MessageHandler, filters

from bot.handlers import buttons, commands, errors
from bot.presentation import callbacks


def register(application: Application) -> None:
    # New messages only: editing an old message must not run its command (or chatter) again.
    new = filters.UpdateType.MESSAGE
    for name, callback in commands.COMMANDS.items():
        application.add_handler(CommandHandler(name, callback, filters=new))
    application.add_handler(CallbackQueryHandler(buttons.on_game_button, callbacks.GAME_PATTERN))
    application.add_handler(CallbackQueryHandler(buttons.on_new_button, callbacks.NEW_PATTERN))
    application.add_handler(
        CallbackQueryHandler(buttons.on_language_button, callbacks.LANGUAGE_PATTERN)
    )
    application.add_handler(
        CallbackQueryHandler(buttons.on_current_button, callbacks.CURRENT_PATTERN)
    )
    application.add_handler(CallbackQueryHandler(buttons.on_unknown_button))
    private = new & filters.ChatType.PRIVATE
    application.add_handler(MessageHandler(private & filters.COMMAND, commands.unknown_command))
    application.add_handler(MessageHandler(private & ~filters.COMMAND, commands.chatter))
    application.add_error_handler(errors.on_error)
