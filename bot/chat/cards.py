"""Challenge cards: posted, kept up to date at a few edits a minute, and followed when their
group moves.

Card edits are paced: a tap asks the group's queue for a card redraw, which coalesces with
the other players' and runs at most once per `card_interval` with the standings of that
moment, so a hundred players cost the group a handful of edits a minute. Cards and winners
go into the group's queue like every other message, in order.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from telegram import Bot, InlineKeyboardMarkup, Message, ReplyParameters
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from bot.codecs import challenge_payload, deep_link
from bot.models import Challenge, Obligation
from bot.presentation.i18n import Translator, group_zone, translator
from bot.presentation.leaderboards import challenge_card, challenge_keyboard, winner_text
from bot.wiring import Runtime

log = logging.getLogger(__name__)
CARD_TOP = 10


async def post_challenge_card(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    """Post a new challenge's card, as the answer to its /challenge, and remember it."""
    challenge = await runtime.storage.challenge(obligation.subject_id)
    if challenge is None or challenge.message_id is not None or challenge.finished:
        return
    t = await card_translator(runtime, challenge)
    text, markup = await card_text(bot.username, runtime, challenge, t)
    try:
        message = await bot.send_message(
            challenge.chat_id,
            text,
            reply_markup=markup,
            reply_to_message_id=obligation.reply_to,
        )
    except ChatMigrated as error:  # `follow_group` posts the card in the new chat
        await follow_group(bot, runtime, challenge.chat_id, error.new_chat_id)
        return
    except (Forbidden, BadRequest) as error:  # removed from the group, say
        # Without its card nobody can join: it must not hold one of the group's places.
        withdrawn = await runtime.challenges.withdraw(challenge)
        log.warning(
            "card of challenge %s not posted (%s)%s",
            challenge.id,
            error,
            "; withdrawn" if withdrawn else "",
        )
        return
    await keep_card(runtime, challenge, message)


async def keep_card(runtime: Runtime, challenge: Challenge, message: Message) -> None:
    """Make `message` the challenge's card, or delete it if another card beat it there."""
    if await runtime.challenges.set_card(challenge, message.message_id):
        return
    try:
        await message.delete()
    except TelegramError as error:
        log.warning("second card of challenge %s not deleted: %s", challenge.id, error)


async def card_translator(runtime: Runtime, challenge: Challenge) -> Translator:
    """The group's chosen language, else the language the card was first posted in."""
    language = await runtime.players.chat_language(challenge.chat_id)
    return translator(language or challenge.language)


async def group_clock(runtime: Runtime, chat_id: int) -> ZoneInfo:
    """The zone of every clock time shown about the group: its card, a join, its /best."""
    return group_zone(await runtime.players.chat_language(chat_id))


async def card_text(
    bot_username: str, runtime: Runtime, challenge: Challenge, t: Translator
) -> tuple[str, InlineKeyboardMarkup | None]:
    storage = runtime.storage
    standings = await storage.challenge_standings(challenge.id, CARD_TOP)
    players = await storage.challenge_players(challenge.id)
    zone = await group_clock(runtime, challenge.chat_id)
    text = challenge_card(t, challenge, standings, players, CARD_TOP, zone)
    if challenge.finished:
        return text, None
    link = deep_link(bot_username, challenge_payload(challenge))
    return text, challenge_keyboard(t, link)


@dataclass(frozen=True, slots=True)
class CardRedraw:
    """The card edited with the standings as they are when its turn comes.

    Not a card that has gone: a group that moved has its card posted anew already.
    """

    bot: Bot
    runtime: Runtime
    challenge_id: int
    message_id: int

    async def __call__(self) -> None:
        current = await self.runtime.storage.challenge(self.challenge_id)
        if current is None or current.finished or current.message_id != self.message_id:
            return
        try:
            await show_card(self.bot, self.runtime, current)
        except NetworkError as error:  # the next standing that moves draws it again
            log.warning("challenge card %s not updated: %s", current.id, error)


async def card_changed(bot: Bot, runtime: Runtime, challenge_id: int) -> None:
    """A standing may have moved: one card redraw is queued, at most one per interval."""
    challenge = await runtime.storage.challenge(challenge_id)
    if challenge is None or challenge.message_id is None:
        return
    redraw = CardRedraw(bot, runtime, challenge_id, challenge.message_id)
    runtime.pacer.edit(challenge.chat_id, challenge.message_id, redraw, every=runtime.card_interval)


async def show_card(bot: Bot, runtime: Runtime, challenge: Challenge) -> None:
    """Bring the challenge's card up to date: edit it, or post one if it has none.

    A challenge has no card after its group moved to a new id, which a send to the old id
    may be the first to tell: then the group is moved (`follow_group`) and the card posted
    in the new chat.
    """
    t = await card_translator(runtime, challenge)
    text, markup = await card_text(bot.username, runtime, challenge, t)
    try:
        if challenge.message_id is None:
            message = await bot.send_message(challenge.chat_id, text, reply_markup=markup)
            await keep_card(runtime, challenge, message)
        else:
            await bot.edit_message_text(
                text,
                chat_id=challenge.chat_id,
                message_id=challenge.message_id,
                reply_markup=markup,
            )
    except ChatMigrated as error:
        await follow_group(bot, runtime, challenge.chat_id, error.new_chat_id)
        moved = await runtime.storage.challenge(challenge.id)
        if moved is not None and moved.finished:  # `follow_group` posts the open ones
            await show_card(bot, runtime, moved)
    except RetryAfter:
        raise  # the group's queue shows it once the flood wait is over
    except BadRequest as error:
        if "not modified" not in error.message.lower():
            log.warning("challenge card %s not updated: %s", challenge.id, error.message)
    except NetworkError:
        raise  # the caller decides: a redraw waits for the next tap, an owed card is retried
    except TelegramError as error:  # removed from the group
        log.warning("challenge card %s not updated: %s", challenge.id, error)


async def follow_group(bot: Bot, runtime: Runtime, old: int, new: int) -> None:
    """Group `old` is now supergroup `new`: move what the bot keeps of it there, and post
    the cards of its running challenges anew (the old messages stay in the old chat), in
    the new chat's turn."""
    for challenge in await runtime.players.move_group(old, new):
        runtime.pacer.post(new, CardShow(bot, runtime, challenge.id))


@dataclass(frozen=True, slots=True)
class CardShow:
    """The challenge's card as it stands when the job's turn comes (posted if it has none)."""

    bot: Bot
    runtime: Runtime
    challenge_id: int

    async def __call__(self) -> None:
        current = await self.runtime.storage.challenge(self.challenge_id)
        if current is not None:
            await show_card(self.bot, self.runtime, current)


async def show_final_card(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    challenge = await runtime.storage.challenge(obligation.subject_id)
    if challenge is not None:
        await show_card(bot, runtime, challenge)


async def announce_winner(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    # Showing the card may have found the group under a new id: announce the winner there.
    challenge = await runtime.storage.challenge(obligation.subject_id)
    if challenge is None:
        return
    t = await card_translator(runtime, challenge)
    standings = await runtime.storage.challenge_standings(challenge.id, 1)
    text = winner_text(t, challenge, standings[0] if standings else None)
    # A reply to its own card: with two challenges ending together, each says which.
    card = None
    if challenge.message_id is not None:
        card = ReplyParameters(challenge.message_id, allow_sending_without_reply=True)
    try:
        try:
            await bot.send_message(challenge.chat_id, text, reply_parameters=card)
        except ChatMigrated as error:
            await follow_group(bot, runtime, challenge.chat_id, error.new_chat_id)
            await bot.send_message(error.new_chat_id, text)
    except (Forbidden, BadRequest) as error:
        log.warning("winner of challenge %s not announced: %s", challenge.id, error)
