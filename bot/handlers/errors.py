"""The last line of defence: log what broke with its context, apologise briefly."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from dataclasses import dataclass

from telegram import Bot, Update, User
from telegram.error import RetryAfter, TelegramError
from telegram.ext import ApplicationHandlerStop

from bot.handlers.context import BotContext
from bot.metrics import DATABASE_ERRORS
from bot.presentation.i18n import resolve_language, translator
from bot.storage import StorageUnavailable

log = logging.getLogger(__name__)


async def on_error(update: object, context: BotContext) -> None:
    if _from_the_database(context.error):
        DATABASE_ERRORS.inc()
    if isinstance(context.error, StorageUnavailable):
        # A known outage, logged once by the storage when it began: one short line each.
        what = f"update {update.update_id}" if isinstance(update, Update) else "a job"
        log.warning("%s not handled: %s", what, context.error)
    else:
        log.error("unhandled error while processing %r", update, exc_info=context.error)
    if not isinstance(update, Update):
        return
    if update.effective_user is not None:
        await _apologise(update, context, update.effective_user)
    # The handlers after a failed one rely on it (the bookkeeping runs before every handler):
    # they would only fail again and apologise twice. The update ends here.
    raise ApplicationHandlerStop


def _from_the_database(error: BaseException | None) -> bool:
    """An outage, or an error the database driver raised (asyncpg is imported only in use)."""
    if isinstance(error, StorageUnavailable | sqlite3.Error):
        return True
    return type(error).__module__.startswith("asyncpg")


async def _apologise(update: Update, context: BotContext, user: User) -> None:
    t = translator(resolve_language(None, user.language_code))  # Telegram's language
    if not isinstance(context.error, StorageUnavailable):
        # The player's own choice, unless the database is away: asking it would make the
        # apology wait out the same outage a second time.
        with contextlib.suppress(Exception):
            t = await context.sender_translator(user)
    apology = t._("Sorry, something went wrong on my side. Please try again.")
    if update.callback_query is not None:
        try:
            await update.callback_query.answer(apology)
        except TelegramError:
            log.warning("could not deliver the apology for a failed update", exc_info=True)
    elif update.effective_chat is not None and update.effective_chat.type == "private":
        chat_id = update.effective_chat.id
        context.runtime.pacer.post(chat_id, Apology(context.bot, chat_id, apology))


@dataclass(frozen=True, slots=True)
class Apology:
    """The apology for a failed update, in its private chat's turn; if it fails, it is lost."""

    bot: Bot
    chat_id: int
    text: str

    async def __call__(self) -> None:
        try:
            await self.bot.send_message(self.chat_id, self.text)
        except RetryAfter:
            raise  # sent once the flood wait is over
        except TelegramError:
            log.warning("could not deliver the apology for a failed update", exc_info=True)
