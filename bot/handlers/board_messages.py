"""The board message pipeline: assemble a board, post it, edit it, and redraw it paced.

A board's text needs a few reads besides the game (the owner's best score, their name in a
group, the challenge's group title); sending and editing keep the game's board message
current. Both go through the chat's queue at its pace, and both draw the game as saved when
their turn comes: a redraw request edits the message soon, coalesced with later taps.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError

from bot.handlers.context import BotContext, Runtime
from bot.handlers.replies import post_in_turn
from bot.models import StoredGame
from bot.presentation import render
from bot.presentation.i18n import Translator

log = logging.getLogger(__name__)


async def board_message(
    runtime: Runtime, stored: StoredGame, t: Translator, view: str, *, share: bool = False
) -> tuple[str, InlineKeyboardMarkup]:
    storage = runtime.storage
    best = await runtime.games.best_score(stored.owner_id, stored.game.size)
    owner = None
    if stored.chat_id != stored.owner_id:
        owner = await storage.player(stored.owner_id)
    challenge = None
    if stored.challenge_id is not None:
        challenge = await storage.challenge(stored.challenge_id)
    rival = None
    target = await runtime.sharing.duel_target(stored)
    if target is not None:
        rival = (await storage.player(target[0]), target[1].score)
    text = render.board_text(
        t, stored.game, best=best, view=view, owner=owner, challenge=challenge, rival=rival
    )
    keyboard = render.board_keyboard(
        t,
        stored.id,
        stored.game,
        hint=stored.shown_hint,
        hints_on=stored.challenge_id is None,
        share=share,
        view=view,
        ended=challenge is not None and challenge.finished,
        webapp=runtime.webapp_page if stored.chat_id == stored.owner_id else None,
    )
    return text, keyboard


async def _send_board(
    bot: Bot, runtime: Runtime, stored: StoredGame, t: Translator, view: str
) -> None:
    text, markup = await board_message(runtime, stored, t, view, share=bot.supports_inline_queries)
    message = await bot.send_message(stored.chat_id, text, reply_markup=markup)
    await runtime.games.link_message(stored, message.message_id)
    if stored.message_id is not None and stored.message_id != message.message_id:
        retire_board(bot, runtime, stored.chat_id, stored.message_id)


def retire_board(bot: Bot, runtime: Runtime, chat_id: int, message_id: int) -> None:
    """Take the buttons off a board that a newer message of its game has replaced, in turn.

    Players scroll up and tap old messages: only the newest board of a game keeps its
    buttons, so the board they see last is always the one that moves.
    """

    async def strip() -> None:
        try:
            await bot.edit_message_reply_markup(chat_id=chat_id, message_id=message_id)
        except BadRequest as error:  # gone, or stripped already
            log.info("old board %s in chat %s kept: %s", message_id, chat_id, error.message)
        except (NetworkError, Forbidden, ChatMigrated) as error:
            log.warning("old board %s in chat %s kept: %s", message_id, chat_id, error)

    runtime.pacer.edit(chat_id, message_id, strip)


def send_board(
    context: BotContext,
    update: object,
    stored: StoredGame,
    t: Translator,
    view: str,
    *,
    latest_of: Hashable | None = None,
) -> None:
    """Post the board as a new message, in turn, and make it the game's board message.

    `latest_of`: a newer post of the same name replaces this one while it waits.
    """
    bot, runtime = context.bot, context.runtime

    async def send() -> None:
        latest = await runtime.games.saved(stored.id)
        await _send_board(bot, runtime, latest or stored, t, view)

    post_in_turn(context, update, stored.chat_id, send, latest_of=latest_of)


async def _edit_board(
    bot: Bot, runtime: Runtime, stored: StoredGame, message_id: int, t: Translator, view: str
) -> None:
    """Redraw the board in the message that was tapped; a deleted message gets a fresh board."""
    text, markup = await board_message(runtime, stored, t, view, share=bot.supports_inline_queries)
    try:
        await bot.edit_message_text(
            text, chat_id=stored.chat_id, message_id=message_id, reply_markup=markup
        )
    except BadRequest as error:
        description = error.message.lower()
        if "not modified" in description:
            return
        if "message to edit not found" in description:
            log.info(
                "board message %s in chat %s is gone; sending a new one",
                message_id,
                stored.chat_id,
            )
            await _send_board(bot, runtime, stored, t, view)
            return
        raise
    await runtime.games.link_message(stored, message_id)


def request_redraw(
    context: BotContext, stored: StoredGame, message_id: int, t: Translator, view: str
) -> None:
    """Have the board message show the game as saved, soon; repeated requests coalesce.

    The draw runs later, outside this update, so it holds on to the bot and the services
    rather than to the update's context. A flood wait puts it back into the queue, to draw
    the game as saved once the wait is over.
    """
    bot, runtime = context.bot, context.runtime

    async def draw() -> None:
        latest = await runtime.games.saved(stored.id)
        if latest is None:
            return
        try:
            await _edit_board(bot, runtime, latest, message_id, t, view)
        except (NetworkError, Forbidden, ChatMigrated) as error:
            # Timeouts, a player who blocked the bot, a group upgraded to a supergroup (its
            # old messages stay behind): the move is saved, and the next tap (or /start) draws
            # the board again.
            log.warning("board %s not redrawn in chat %s: %s", stored.id, stored.chat_id, error)
            return
        if not runtime.storage.shared:
            return  # this process's own later taps have asked for their redraw already
        # Another process may have drawn a newer move while this edit was on its way, and
        # this edit may have landed after it: then draw again.
        now = await runtime.games.saved(stored.id)
        if now is not None and (now.game, now.shown_hint) != (latest.game, latest.shown_hint):
            runtime.pacer.edit(stored.chat_id, message_id, draw, replace=False)

    runtime.pacer.edit(stored.chat_id, message_id, draw)
