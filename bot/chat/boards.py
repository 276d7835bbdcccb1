"""Board messages: assembled from the saved game, posted, edited and retired, in turn.

A board's text needs a few reads besides the game (the owner's best score, their name in a
group, the challenge's group title). Posting and editing keep the game's board message
current; both go through the chat's queue at its pace, and both draw the game as saved when
their turn comes, so a redraw asked for by every tap coalesces into one edit showing the
latest move.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable
from dataclasses import dataclass

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError
from telegram.ext import Application

from bot.chat.posts import post_in_turn
from bot.models import StoredGame, View
from bot.presentation import render
from bot.presentation.daily import daily_board
from bot.presentation.i18n import Translator
from bot.wiring import Runtime, runtime_of

log = logging.getLogger(__name__)


async def board_message(
    runtime: Runtime, stored: StoredGame, t: Translator, view: View, *, share: bool = False
) -> tuple[str, InlineKeyboardMarkup]:
    storage = runtime.storage
    best = await runtime.games.best_score(stored.owner_id, stored.game.size)
    owner = None
    if stored.chat_id != stored.owner_id:
        owner = await storage.player(stored.owner_id)
    challenge, top = None, 0
    if stored.challenge_id is not None:
        challenge = await storage.challenge(stored.challenge_id)
        leader = await storage.challenge_standings(stored.challenge_id, 1)
        top = leader[0].score if leader else 0
    rival = None
    target = await runtime.sharing.duel_target(stored)
    if target is not None:
        rival = (await storage.player(target[0]), target[1].score)
    daily = None if stored.daily_id is None else await storage.daily(stored.daily_id)
    day_over = daily is not None and runtime.daily.over(daily)
    # 🔎 in the player's own chat, once nobody else can still meet the game's positions.
    secret = (challenge is not None and not challenge.finished) or (
        daily is not None and not day_over
    )
    reviewable = stored.chat_id == stored.owner_id and stored.actions is not None and not secret
    text = render.board_text(
        t,
        stored.game,
        best=best,
        view=view,
        owner=owner,
        challenge=challenge,
        rival=rival,
        top=top,
        daily=daily_board(t, daily, over=day_over),
    )
    keyboard = render.board_keyboard(
        t,
        stored.id,
        stored.game,
        hint=stored.shown_hint,
        hints_on=stored.challenge_id is None and daily is None,
        share=share,
        view=view,
        ended=(challenge is not None and challenge.finished) or day_over,
        webapp=runtime.miniapp_page if stored.chat_id == stored.owner_id else None,
        offer_daily=daily is None,
        review=len(stored.actions or "") if reviewable else None,
    )
    return text, keyboard


async def _post_board(
    bot: Bot, runtime: Runtime, stored: StoredGame, t: Translator, view: View
) -> None:
    text, markup = await board_message(runtime, stored, t, view, share=bot.supports_inline_queries)
    message = await bot.send_message(stored.chat_id, text, reply_markup=markup)
    await runtime.games.link_message(stored, message.message_id)
    if stored.message_id is not None and stored.message_id != message.message_id:
        retire_board(bot, runtime, stored.chat_id, stored.message_id)


@dataclass(frozen=True, slots=True)
class BoardRetire:
    """A board's buttons taken off: a newer message of its game has replaced it."""

    bot: Bot
    chat_id: int
    message_id: int

    async def __call__(self) -> None:
        try:
            await self.bot.edit_message_reply_markup(
                chat_id=self.chat_id, message_id=self.message_id
            )
        except BadRequest as error:  # gone, or stripped already
            log.info(
                "old board %s in chat %s kept: %s", self.message_id, self.chat_id, error.message
            )
        except (NetworkError, Forbidden, ChatMigrated) as error:
            log.warning("old board %s in chat %s kept: %s", self.message_id, self.chat_id, error)


def retire_board(bot: Bot, runtime: Runtime, chat_id: int, message_id: int) -> None:
    """Take the buttons off a board that a newer message of its game has replaced, in turn.

    Players scroll up and tap old messages: only the newest board of a game keeps its
    buttons, so the board they see last is always the one that moves.
    """
    runtime.pacer.edit(chat_id, message_id, BoardRetire(bot, chat_id, message_id))


@dataclass(frozen=True, slots=True)
class BoardPost:
    """The game's board as a new message, drawn as saved when its turn comes."""

    bot: Bot
    runtime: Runtime
    stored: StoredGame
    t: Translator
    view: View

    async def __call__(self) -> None:
        latest = await self.runtime.games.saved(self.stored.id)
        await _post_board(self.bot, self.runtime, latest or self.stored, self.t, self.view)


def send_board(
    application: Application,
    update: object,
    stored: StoredGame,
    t: Translator,
    view: View,
    *,
    latest_of: Hashable | None = None,
) -> None:
    """Post the board as a new message, in turn, and make it the game's board message.

    `latest_of`: a newer post of the same name replaces this one while it waits.
    """
    runtime = runtime_of(application)
    board = BoardPost(application.bot, runtime, stored, t, view)
    post_in_turn(application, update, stored.chat_id, board, latest_of=latest_of)


@dataclass(frozen=True, slots=True)
class BoardRedraw:
    """The board message edited to show its game as saved when the edit's turn comes.

    Every tap asks for one, and a newer request replaces one still waiting: however fast the
    taps, the chat sees one edit per turn, with the latest move. A flood wait puts it back
    into the queue, to draw the game as saved once the wait is over.
    """

    bot: Bot
    runtime: Runtime
    game_id: int
    chat_id: int
    message_id: int
    t: Translator
    view: View

    async def __call__(self) -> None:
        latest = await self.runtime.games.saved(self.game_id)
        if latest is None:
            return
        try:
            await self._edit(latest)
        except (NetworkError, Forbidden, ChatMigrated) as error:
            # Timeouts, a player who blocked the bot, a group upgraded to a supergroup (its
            # old messages stay behind): the move is saved, and the next tap (or /start) draws
            # the board again.
            log.warning("board %s not redrawn in chat %s: %s", self.game_id, self.chat_id, error)
            return
        if not self.runtime.recheck_after_edit:
            return  # this process's own later taps have asked for their redraw already
        now = await self.runtime.games.saved(self.game_id)
        if now is not None and (now.game, now.shown_hint) != (latest.game, latest.shown_hint):
            self.runtime.pacer.edit(self.chat_id, self.message_id, self, replace=False)

    async def _edit(self, stored: StoredGame) -> None:
        """Redraw the board in its message; a deleted message gets a fresh board."""
        bot, runtime = self.bot, self.runtime
        text, markup = await board_message(
            runtime, stored, self.t, self.view, share=bot.supports_inline_queries
        )
        try:
            await bot.edit_message_text(
                text, chat_id=stored.chat_id, message_id=self.message_id, reply_markup=markup
            )
        except BadRequest as error:
            description = error.message.lower()
            if "not modified" in description:
                return
            if "message to edit not found" in description:
                log.info(
                    "board message %s in chat %s is gone; sending a new one",
                    self.message_id,
                    stored.chat_id,
                )
                await _post_board(bot, runtime, stored, self.t, self.view)
                return
            raise
        await runtime.games.link_message(stored, self.message_id)


def redraw_board(
    application: Application, stored: StoredGame, message_id: int, t: Translator, view: View
) -> None:
    """Have the board message show the game as saved, soon; repeated requests coalesce."""
    runtime = runtime_of(application)
    redraw = BoardRedraw(application.bot, runtime, stored.id, stored.chat_id, message_id, t, view)
    runtime.pacer.edit(stored.chat_id, message_id, redraw)
