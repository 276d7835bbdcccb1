"""The last line of defence: log what broke with its context, apologise briefly."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import RetryAfter, TelegramError

from bot.handlers.bookkeeping import sender_translator
from bot.handlers.context import BotContext
from bot.presentation.i18n import resolve_language, translator

log = logging.getLogger(__name__)


async def on_error(update: object, context: BotContext) -> None:
    log.error("unhandled error while processing %r", update, exc_info=context.error)
    if not isinstance(update, Update) or update.effective_user is None:
        return
    user = update.effective_user
    try:
        t = await sender_translator(context, user)
    except Exception:  # the failure may be the database itself: Telegram's language will do
        t = translator(resolve_language(None, user.language_code))
    apology = t._("Sorry, something went wrong on my side. Please try again.")
    if update.callback_query is not None:
        try:
            await update.callback_query.answer(apology)
        except TelegramError:
            log.warning("could not deliver the apology for a failed update", exc_info=True)
    elif update.effective_chat is not None and update.effective_chat.type == "private":
        chat_id, bot = update.effective_chat.id, context.bot

        async def send() -> None:
            try:
                await bot.send_message(chat_id, apology)
            except RetryAfter:
                raise  # sent once the flood wait is over
            except TelegramError:
                log.warning("could not deliver the apology for a failed update", exc_info=True)

        context.services.pacer.post(chat_id, send)
