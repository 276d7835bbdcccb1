"""Telegram calls whose failure is no reason to fail an update: answers, swaps and replies.

A tap Telegram no longer accepts, a message already replaced by a double tap, a keyboard
already swapped: each is logged and the update goes on.
"""

from __future__ import annotations

import logging

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest, ChatMigrated, NetworkError, RetryAfter

log = logging.getLogger(__name__)


def offered(query: CallbackQuery) -> bool:
    """Whether the tapped message really has a button with this data (forged data has not)."""
    message = query.message
    markup = message.reply_markup if isinstance(message, Message) else None
    return markup is not None and any(
        button.callback_data == query.data for row in markup.inline_keyboard for button in row
    )


async def reply(update: Update, text: str, **kwargs: object) -> Message:
    """Answer the message the update carries, in its chat.

    A group upgraded to a supergroup since the message was sent gets the answer there.
    """
    message = update.effective_message
    assert message is not None
    try:
        return await message.reply_text(text, **kwargs)  # type: ignore[arg-type]
    except ChatMigrated as error:
        return await message.get_bot().send_message(error.new_chat_id, text, **kwargs)  # type: ignore[arg-type]


async def show_text(query: CallbackQuery, text: str) -> None:
    """Replace the tapped message's text (and drop its keyboard); a double tap finds it done."""
    try:
        await query.edit_message_text(text)
    except BadRequest as error:
        log.info("message of callback query %s not replaced: %s", query.id, error.message)


async def show_keyboard(query: CallbackQuery, markup: InlineKeyboardMarkup) -> None:
    """Swap the keyboard of the tapped message; already swapped or gone is fine."""
    try:
        await query.edit_message_reply_markup(markup)
    except BadRequest as error:
        log.info("keyboard of callback query %s not replaced: %s", query.id, error.message)


async def answer(query: CallbackQuery, text: str | None = None, **kwargs: object) -> None:
    """Answer a tap; a query Telegram no longer accepts is no reason to fail the update."""
    try:
        await query.answer(text, **kwargs)  # type: ignore[arg-type]
    except BadRequest as error:
        log.info("callback query %s not answered: %s", query.id, error.message)
    except (NetworkError, RetryAfter) as error:
        log.warning("callback query %s not answered: %s", query.id, error)
