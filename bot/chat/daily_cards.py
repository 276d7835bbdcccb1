"""The daily's message in the groups that opted in: posted, kept up to date, then final.

Each is sent in its group's turn, through the one pacer. The day's message is posted from
the outbox (bot/services/group_daily.py owes it), edited when a member's daily ends, at
most once per `card_interval` with the standings of that moment (a member finishing asks
the group's queue for a redraw, which coalesces with the others'), and at the day's end
edited into the final ranking, with the winner announced below it, both from the outbox.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import Bot, InlineKeyboardMarkup, Message, ReplyParameters
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    RetryAfter,
    TelegramError,
)

from bot.chat.cards import follow_group
from bot.models import Daily, GroupDaily, Obligation, StoredGame
from bot.presentation.daily import daily_link, daily_link_keyboard
from bot.presentation.group_daily import group_card, group_winner
from bot.presentation.i18n import DEFAULT_LANGUAGE, Translator, translator
from bot.wiring import Runtime

log = logging.getLogger(__name__)


async def _translator(runtime: Runtime, chat_id: int) -> Translator:
    return translator(await runtime.storage.daily_card_language(chat_id) or DEFAULT_LANGUAGE)


async def _card_text(
    bot: Bot, runtime: Runtime, daily: Daily, chat_id: int, *, final: bool
) -> tuple[str, InlineKeyboardMarkup | None]:
    t = await _translator(runtime, chat_id)
    standings = await runtime.storage.daily_group_standings(daily.id, chat_id)
    text = group_card(t, daily, standings, final=final)
    if final:
        return text, None
    return text, daily_link_keyboard(t, daily_link(bot.username, daily.day, daily.size))


async def _send(
    bot: Bot,
    runtime: Runtime,
    chat_id: int,
    text: str,
    reply_markup: InlineKeyboardMarkup | None = None,
    reply_to: int | None = None,
) -> Message:
    """Send into the group, following it first if it has moved to a new id."""
    replying = (
        None if reply_to is None else ReplyParameters(reply_to, allow_sending_without_reply=True)
    )
    try:
        return await bot.send_message(
            chat_id, text, reply_markup=reply_markup, reply_parameters=replying
        )
    except ChatMigrated as error:  # its card's row moves with it, without a message
        await follow_group(bot, runtime, chat_id, error.new_chat_id)
        return await bot.send_message(error.new_chat_id, text, reply_markup=reply_markup)


async def _subject(runtime: Runtime, obligation: Obligation) -> tuple[Daily, GroupDaily] | None:
    storage = runtime.storage
    daily = await storage.daily(obligation.subject_id)
    card = None if daily is None else await storage.group_daily(obligation.chat_id, daily.id)
    return None if daily is None or card is None else (daily, card)


async def post_daily_card(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    """Post the day's message in the group and remember it; not once the day is closed
    there or the group switched the daily off meanwhile."""
    subject = await _subject(runtime, obligation)
    if subject is None or subject[1].finished:
        return
    daily, card = subject
    if not await runtime.storage.daily_on(card.chat_id):
        return
    text, markup = await _card_text(bot, runtime, daily, card.chat_id, final=False)
    try:
        message = await _send(bot, runtime, card.chat_id, text, markup)
    except (Forbidden, BadRequest) as error:  # removed from the group, say
        await runtime.group_daily.removed(card.chat_id)
        log.warning("daily of %s not posted in %s (%s); off there", daily.day, card.chat_id, error)
        return
    await runtime.group_daily.set_card(message.chat_id, daily.id, message.message_id)


@dataclass(frozen=True, slots=True)
class DailyCardRedraw:
    """The day's message edited with the standings as they are when its turn comes."""

    bot: Bot
    runtime: Runtime
    chat_id: int
    daily_id: int
    message_id: int

    async def __call__(self) -> None:
        storage = self.runtime.storage
        card = await storage.group_daily(self.chat_id, self.daily_id)
        daily = await storage.daily(self.daily_id)
        if (
            card is None
            or daily is None
            or card.finished
            or card.message_id != self.message_id
            or not await storage.daily_on(self.chat_id)
        ):
            return
        text, markup = await _card_text(self.bot, self.runtime, daily, self.chat_id, final=False)
        try:
            await self.bot.edit_message_text(
                text, chat_id=self.chat_id, message_id=self.message_id, reply_markup=markup
            )
        except ChatMigrated as error:  # the final ranking is posted in the new chat
            await follow_group(self.bot, self.runtime, self.chat_id, error.new_chat_id)
        except RetryAfter:
            raise  # the group's queue draws it once the flood wait is over
        except BadRequest as error:
            if "not modified" not in error.message.lower():
                log.warning("daily of %s not updated in %s: %s", daily.day, self.chat_id, error)
        except TelegramError as error:  # the next member to finish draws it again
            log.warning("daily of %s not updated in %s: %s", daily.day, self.chat_id, error)


async def daily_finished(bot: Bot, runtime: Runtime, entry: StoredGame) -> None:
    """A member's daily has ended: the day's message in each of their opted-in groups gets
    one redraw queued, at most one per interval."""
    assert entry.daily_id is not None
    for card in await runtime.storage.member_group_dailies(entry.daily_id, entry.owner_id):
        assert card.message_id is not None
        redraw = DailyCardRedraw(bot, runtime, card.chat_id, card.daily_id, card.message_id)
        runtime.pacer.edit(card.chat_id, card.message_id, redraw, every=runtime.card_interval)


async def show_final_daily_card(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    """The day's message becomes its final ranking (posted anew if it has no message)."""
    subject = await _subject(runtime, obligation)
    if subject is None:
        return
    daily, card = subject
    text, _ = await _card_text(bot, runtime, daily, card.chat_id, final=True)
    try:
        if card.message_id is None:
            message = await _send(bot, runtime, card.chat_id, text)
            await runtime.group_daily.set_card(message.chat_id, daily.id, message.message_id)
        else:
            await bot.edit_message_text(text, chat_id=card.chat_id, message_id=card.message_id)
    except ChatMigrated as error:  # an edit in the old chat: the ranking goes to the new one
        await follow_group(bot, runtime, card.chat_id, error.new_chat_id)
        message = await bot.send_message(error.new_chat_id, text)
        await runtime.group_daily.set_card(message.chat_id, daily.id, message.message_id)
    except BadRequest as error:
        if "not modified" not in error.message.lower():
            log.warning("final daily of %s not shown in %s: %s", daily.day, card.chat_id, error)
    except Forbidden as error:
        log.warning("final daily of %s not shown in %s: %s", daily.day, card.chat_id, error)


async def announce_daily_winner(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    """The day's winner among the group's members, as a reply to the final ranking."""
    subject = await _subject(runtime, obligation)
    if subject is None:
        return
    daily, card = subject
    t = await _translator(runtime, card.chat_id)
    standings = await runtime.storage.daily_group_standings(daily.id, card.chat_id)
    text = group_winner(t, daily, standings[0] if standings else None)
    try:
        await _send(bot, runtime, card.chat_id, text, reply_to=card.message_id)
    except (Forbidden, BadRequest) as error:
        log.warning("winner of the daily of %s not told in %s: %s", daily.day, card.chat_id, error)
