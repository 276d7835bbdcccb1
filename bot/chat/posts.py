"""Posts and edits of the tapped message, at the chat's pace; answers to taps, at once.

Replies and edits go into the chat's queue (bot/transport/pacer.py) and the caller returns,
so no update waits for the chat's pace or a flood wait; a queued post that fails reaches the
error handler with its update, as if the handler had sent it. Answers to taps are never
paced, and one lost on the way is sent once more. A tap Telegram no longer accepts, a
message already replaced by a double tap, a keyboard already swapped: each is logged and the
update goes on.

Only one delivery of an update posts what it causes: a post asks the update log first, and a
delivery that finds another one claimed the update's posts (on another process, or before a
restart) sends nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from telegram import Bot, CallbackQuery, InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest, ChatMigrated, NetworkError, RetryAfter
from telegram.ext import Application

from bot.transport.pacer import Job
from bot.wiring import runtime_of

log = logging.getLogger(__name__)
ANSWER_ATTEMPTS = 2  # a tap's answer lost on the way is sent once more


def update_key(update: Update) -> str:
    """What a redelivery of this update shares with its first delivery, and nothing else does.

    A tap is its callback query; a message is its chat and message id, and an edit of it
    (a new command in an old message) adds the moment of the edit.
    """
    if update.callback_query is not None:
        return f"q{update.callback_query.id}"
    message = update.effective_message
    assert message is not None, "an update that applies once answers a message or a tap"
    key = f"m{message.chat.id}:{message.message_id}"
    if update.edited_message is not None and message.edit_date is not None:
        key += f":{int(message.edit_date.timestamp())}"
    return key


@dataclass(slots=True)
class PostInTurn:
    """A queued post: sent by the delivery that claims its update's posts, else not at all.

    The claim is kept once made, for a run again after a flood wait. A failure other than a
    flood wait goes to the error handler with `update`, which apologises in the chat.
    """

    application: Application
    update: object
    send: Job
    claimed: bool = field(default=False, init=False)

    async def __call__(self) -> None:
        update = self.update
        try:
            if isinstance(update, Update) and not self.claimed:
                if not await runtime_of(self.application).update_log.first_to_post(
                    update_key(update)
                ):
                    return
                self.claimed = True
            await self.send()
        except RetryAfter:
            raise  # the queue sends it again once the flood wait is over
        except Exception as error:
            await self.application.process_error(update, error)


def post_in_turn(
    application: Application,
    update: object,
    chat_id: int,
    send: Job,
    *,
    latest_of: Hashable | None = None,
) -> None:
    """Queue `send` at the chat's pace, for one delivery of `update` (None: no update).

    `latest_of` names what this post is the newest of (Pacer.post): one waits at most.
    """
    job = PostInTurn(application, update, send)
    runtime_of(application).pacer.post(chat_id, job, latest_of=latest_of)


async def send_reply(update: Update, text: str, **kwargs: Any) -> Message:
    """Answer the message the update carries, in its chat, now (inside a queued job).

    A group upgraded to a supergroup since the message was sent gets the answer there.
    """
    message = update.effective_message
    assert message is not None
    try:
        return await message.reply_text(text, **kwargs)
    except ChatMigrated as error:
        return await message.get_bot().send_message(error.new_chat_id, text, **kwargs)


@dataclass(frozen=True, slots=True)
class Reply:
    """A text answering the message an update carries."""

    update: Update
    text: str
    options: dict[str, Any]

    async def __call__(self) -> None:
        await send_reply(self.update, self.text, **self.options)


def reply(application: Application, update: Update, text: str, **options: Any) -> None:
    """Answer the message the update carries, in its chat, in turn."""
    message = update.effective_message
    assert message is not None
    post_in_turn(application, update, message.chat_id, Reply(update, text, options))


@dataclass(frozen=True, slots=True)
class Say:
    """A new message in a chat, answering no message in particular."""

    bot: Bot
    chat_id: int
    text: str
    options: dict[str, Any]

    async def __call__(self) -> None:
        await self.bot.send_message(self.chat_id, self.text, **self.options)


@dataclass(frozen=True, slots=True)
class TextSwap:
    """The tapped message's text replaced (its keyboard dropped); a double tap finds it done."""

    query: CallbackQuery
    text: str

    async def __call__(self) -> None:
        try:
            await self.query.edit_message_text(self.text)
        except BadRequest as error:
            log.info("message of callback query %s not replaced: %s", self.query.id, error.message)


@dataclass(frozen=True, slots=True)
class KeyboardSwap:
    """The tapped message's keyboard swapped; already swapped or gone is fine."""

    query: CallbackQuery
    markup: InlineKeyboardMarkup

    async def __call__(self) -> None:
        try:
            await self.query.edit_message_reply_markup(self.markup)
        except BadRequest as error:
            log.info("keyboard of callback query %s not replaced: %s", self.query.id, error.message)


def edit_tapped(
    application: Application, query: CallbackQuery, edit: TextSwap | KeyboardSwap
) -> None:
    """Edit the tapped message in turn; a later edit of it, or a board redraw, replaces it."""
    message = query.message
    assert message is not None
    runtime_of(application).pacer.edit(message.chat.id, message.message_id, edit)


async def answer(query: CallbackQuery, text: str | None = None, **kwargs: Any) -> None:
    """Answer a tap; a query Telegram no longer accepts is no reason to fail the update.

    An answer lost on the way (a timeout, a bad gateway) is sent once more: until it is
    answered the player's button spins, and its toast may be what they asked for (a hint).
    Should the first have reached Telegram after all, the second is refused as too old.
    """
    for attempt in range(ANSWER_ATTEMPTS):
        try:
            await query.answer(text, **kwargs)
            return
        except BadRequest as error:  # before NetworkError, which it is a kind of
            log.info("callback query %s not answered: %s", query.id, error.message)
            return
        except RetryAfter as error:
            log.warning("callback query %s not answered: %s", query.id, error)
            return
        except NetworkError as error:
            if attempt + 1 == ANSWER_ATTEMPTS:
                log.warning("callback query %s not answered: %s", query.id, error)
