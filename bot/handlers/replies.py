"""What handlers send: replies and swaps at the chat's pace, answers at once.

Replies and edits of the tapped message go into the chat's queue (bot/transport/pacer.py) and
the handler returns, so no update waits for the chat's pace or a flood wait; a queued reply
that fails reaches the error handler with its update, as if the handler had sent it. Answers
to taps are never paced. A tap Telegram no longer accepts, a message already replaced by a
double tap, a keyboard already swapped: each is logged and the update goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest, ChatMigrated, NetworkError, RetryAfter

from bot.handlers.bookkeeping import update_key
from bot.handlers.context import BotContext
from bot.transport.pacer import Job

log = logging.getLogger(__name__)


def post_in_turn(
    context: BotContext,
    update: object,
    chat_id: int,
    send: Job,
    *,
    latest_of: Hashable | None = None,
) -> None:
    """Queue `send` at the chat's pace; should it fail, the error handler gets `update`.

    `latest_of` names what this post is the newest of (Pacer.post): one waits at most.

    Only one delivery of an update posts what it causes: one that finds another delivery
    claimed the update's posts (on another process, or before a restart) sends nothing.
    """
    application = context.application
    update_log = context.runtime.update_log
    key = update_key(update) if isinstance(update, Update) else None
    claimed = False  # kept for a run again after a flood wait

    async def run() -> None:
        nonlocal claimed
        try:
            if key is not None and not claimed:
                if not await update_log.first_to_post(key):
                    return
                claimed = True
            await send()
        except RetryAfter:
            raise  # the queue sends it again once the flood wait is over
        except Exception as error:
            await application.process_error(update, error)

    context.runtime.pacer.post(chat_id, run, latest_of=latest_of)


def offered(query: CallbackQuery) -> bool:
    """Whether the tapped message really has a button with this data (forged data has not)."""
    message = query.message
    markup = message.reply_markup if isinstance(message, Message) else None
    return markup is not None and any(
        button.callback_data == query.data for row in markup.inline_keyboard for button in row
    )


async def send_reply(update: Update, text: str, **kwargs: object) -> Message:
    """Answer the message the update carries, in its chat, now (inside a queued job).

    A group upgraded to a supergroup since the message was sent gets the answer there.
    """
    message = update.effective_message
    assert message is not None
    try:
        return await message.reply_text(text, **kwargs)  # type: ignore[arg-type]
    except ChatMigrated as error:
        return await message.get_bot().send_message(error.new_chat_id, text, **kwargs)  # type: ignore[arg-type]


def reply(context: BotContext, update: Update, text: str, **kwargs: object) -> None:
    """Answer the message the update carries, in its chat, in turn."""
    message = update.effective_message
    assert message is not None

    async def send() -> None:
        await send_reply(update, text, **kwargs)

    post_in_turn(context, update, message.chat_id, send)


def _edit_tapped(context: BotContext, query: CallbackQuery, edit: Job) -> None:
    """Edit the tapped message in turn; a later edit of it, or a board redraw, replaces it."""
    message = query.message
    assert message is not None
    context.runtime.pacer.edit(message.chat.id, message.message_id, edit)


def show_text(context: BotContext, query: CallbackQuery, text: str) -> None:
    """Replace the tapped message's text (and drop its keyboard); a double tap finds it done."""

    async def edit() -> None:
        try:
            await query.edit_message_text(text)
        except BadRequest as error:
            log.info("message of callback query %s not replaced: %s", query.id, error.message)

    _edit_tapped(context, query, edit)


def show_keyboard(context: BotContext, query: CallbackQuery, markup: InlineKeyboardMarkup) -> None:
    """Swap the keyboard of the tapped message; already swapped or gone is fine."""

    async def edit() -> None:
        try:
            await query.edit_message_reply_markup(markup)
        except BadRequest as error:
            log.info("keyboard of callback query %s not replaced: %s", query.id, error.message)

    _edit_tapped(context, query, edit)


async def answer(query: CallbackQuery, text: str | None = None, **kwargs: object) -> None:
    """Answer a tap; a query Telegram no longer accepts is no reason to fail the update."""
    try:
        await query.answer(text, **kwargs)  # type: ignore[arg-type]
    except BadRequest as error:
        log.info("callback query %s not answered: %s", query.id, error.message)
    except (NetworkError, RetryAfter) as error:
        log.warning("callback query %s not answered: %s", query.id, error)
