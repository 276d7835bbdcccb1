"""Pictures: a game's shared card and replay, and a player's /stats chart, drawn once and
sent by file id after.

Pictures are drawn in the worker pool (one job per player at a time, and a bounded queue for
everyone) and uploaded once: every later send of the same picture goes by Telegram's file id,
kept in the database. A player whose last picture is still being drawn, or who finds the
queue full, is told so in one sentence (`refusal`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, replace
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatAction
from telegram.error import BadRequest, TelegramError
from telegram.ext import Application

from bot.chat.posts import post_in_turn, send_reply
from bot.codecs import deep_link, duel_payload
from bot.metrics import RENDER
from bot.models import Player, StoredGame
from bot.outcomes import PlayerStats
from bot.presentation import captions, charts, images
from bot.presentation.i18n import Translator
from bot.presentation.names import pictured_name
from bot.services.workers import Busy, Crowded, RenderSlot
from bot.wiring import Runtime, runtime_of

log = logging.getLogger(__name__)
Media = bytes | str  # a fresh upload, or the file id of an earlier one


def refusal(t: Translator, error: Busy | Crowded) -> str:
    """Why no picture comes now: the player's last one is being drawn, or the queue is full."""
    return captions.busy(t) if isinstance(error, Busy) else captions.crowded(t)


async def send_picture(
    runtime: Runtime,
    chat_id: int,
    key: str,
    render: Callable[[], Awaitable[bytes]],
    send: Callable[[Media], Awaitable[Message]],
    file_id_of: Callable[[Message], str],
) -> Message:
    """Send by the file id of an earlier upload if there is one, else draw and upload."""
    sharing = runtime.sharing
    cached = await sharing.file_id(key)
    if cached is not None:
        try:
            return await send(cached)
        except BadRequest as error:  # a file id from another bot, say: upload anew
            log.info("file id for %s refused (%s); uploading again", key, error.message)
    message = await send(await render())
    await sharing.remember_file(chat_id, key, file_id_of(message))
    return message


async def _figures(runtime: Runtime, stored: StoredGame, t: Translator) -> images.CardFigures:
    """What a card shows, the owner's name cleaned as every text cleans it."""
    storage = runtime.storage
    best = await storage.best_score(stored.owner_id, stored.game.size)
    name = (await storage.player(stored.owner_id)).name
    return images.card_figures(stored.game, best, pictured_name(t, name, stored.owner_id))


async def send_card(
    bot: Bot,
    runtime: Runtime,
    chat_id: int,
    stored: StoredGame,
    t: Translator,
    caption: str | None,
    **options: Any,
) -> Message:
    """The game's card into `chat_id` now, drawn on the render pool unless sent before."""
    figures = await _figures(runtime, stored, t)
    workers = runtime.workers

    async def render() -> bytes:
        with RENDER.labels("card").time():
            return await workers.run_alone(stored.owner_id, images.card_png, t, figures)

    async def send(photo: Media) -> Message:
        return await bot.send_photo(chat_id, photo, caption=caption, **options)

    return await send_picture(runtime, chat_id, images.card_key(t, figures), render, send, photo_id)


@dataclass(frozen=True, slots=True)
class ChartPost:
    """The player's /stats chart, drawn and sent in the chat's turn, answering `update`; a
    sentence saying why not now if their last picture is still being drawn or the queue is
    full."""

    bot: Bot
    runtime: Runtime
    update: Update
    user_id: int
    t: Translator
    figures: charts.ChartFigures

    async def __call__(self) -> None:
        message = self.update.effective_message
        assert message is not None
        workers, t, figures = self.runtime.workers, self.t, self.figures

        async def render() -> bytes:
            with RENDER.labels("chart").time():
                return await workers.run_alone(self.user_id, charts.chart_png, t, figures)

        async def send(photo: Media) -> Message:
            return await message.reply_photo(photo)

        try:
            await send_picture(
                self.runtime, message.chat_id, charts.chart_key(t, figures), render, send, photo_id
            )
        except (Busy, Crowded) as error:
            await send_reply(self.update, refusal(t, error))


def post_chart(
    application: Application, update: Update, player: Player, t: Translator, stats: PlayerStats
) -> None:
    """The player's /stats chart into the chat of `update`, in the chat's turn."""
    message = update.effective_message
    assert message is not None
    name = pictured_name(t, player.name, player.user_id)
    figures = charts.chart_figures(stats, name)
    chart = ChartPost(application.bot, runtime_of(application), update, player.user_id, t, figures)
    post_in_turn(application, update, message.chat_id, chart)


def photo_id(message: Message) -> str:
    return message.photo[-1].file_id


def duel_link(bot: Bot, stored: StoredGame) -> str | None:
    """The ▶️ link that starts a duel on this game; None for a game without an action log."""
    payload = duel_payload(stored)
    return None if payload is None else deep_link(bot.username, payload)


async def card_message(
    bot: Bot, runtime: Runtime, stored: StoredGame, t: Translator
) -> tuple[str, InlineKeyboardMarkup]:
    """The card's caption and buttons: ▶️ for a duel when the game has one, and 📤."""
    # A running challenge's tiles stay secret: its entry is shown, but offers no duel.
    secret = await runtime.sharing.in_running_challenge(stored)
    link = None if secret else duel_link(bot, stored)
    owner = await runtime.players.player(stored.owner_id)
    if link is None:  # a running challenge's entry, or a game from before actions were logged
        caption = captions.card_caption(t, owner, stored.game)
    else:
        caption = captions.duel_caption(t, owner, stored.game)
    shared = stored.id if bot.supports_inline_queries else None
    return caption, captions.card_keyboard(t, link, shared)


@dataclass(frozen=True, slots=True)
class CardPost:
    """The game's card posted into a chat in its turn, or a sentence saying why not now.

    `update`: the /share being answered (the reply goes to it, and a note on forwarding
    follows when inline mode is off); None for the Mini App's 📤, whose card goes into the
    game's own chat.
    """

    bot: Bot
    runtime: Runtime
    chat_id: int
    stored: StoredGame
    t: Translator
    caption: str
    markup: InlineKeyboardMarkup
    update: Update | None = None

    async def __call__(self) -> None:
        try:
            await send_card(
                self.bot,
                self.runtime,
                self.chat_id,
                self.stored,
                self.t,
                self.caption,
                reply_markup=self.markup,
            )
        except (Busy, Crowded) as error:
            await self._say(refusal(self.t, error))
            return
        if self.update is not None and not self.bot.supports_inline_queries:
            await self._say(captions.inline_off(self.t))

    async def _say(self, text: str) -> None:
        if self.update is None:
            await self.bot.send_message(self.chat_id, text)
        else:
            await send_reply(self.update, text)


async def post_card(
    application: Application,
    update: Update | None,
    chat_id: int,
    stored: StoredGame,
    t: Translator,
    *,
    latest_of: Hashable | None = None,
) -> None:
    """The game's card into the chat, drawn and sent in the chat's turn like every message.

    `latest_of`: a newer post of the same name replaces this one while it waits.
    """
    bot, runtime = application.bot, runtime_of(application)
    caption, markup = await card_message(bot, runtime, stored, t)
    card = CardPost(bot, runtime, chat_id, stored, t, caption, markup, update)
    post_in_turn(application, update, chat_id, card, latest_of=latest_of)


async def send_replay(
    bot: Bot, runtime: Runtime, chat_id: int, stored: StoredGame, t: Translator, slot: RenderSlot
) -> None:
    """Draw and send the replay in `slot`, the place in the picture queue claimed for it."""
    assert stored.actions is not None
    actions = stored.actions
    workers = runtime.workers
    with slot:
        figures = await _figures(runtime, stored, t)
        # Each frame's BEST is the best as of that frame: the player's other games, then this
        # one as it stood (frames draw the larger of the two), never this game's final score.
        others = await runtime.storage.best_of_others(stored.owner_id, stored.game.size, stored.id)
        figures = replace(figures, best=others)
        caption = captions.replay_caption(t, Player(stored.owner_id, figures.name), stored.game)

        async def render() -> bytes:
            await bot.send_chat_action(chat_id, ChatAction.UPLOAD_VIDEO)
            with RENDER.labels("replay").time():
                return await workers.render(
                    stored.owner_id, images.replay_mp4, t, stored.game.seed, actions, figures
                )

        async def send(animation: Media) -> Message:
            return await bot.send_animation(
                chat_id, animation, caption=caption, filename="replay.mp4"
            )

        key = images.replay_key(t, stored.game.seed, actions, figures)
        try:
            await send_picture(runtime, chat_id, key, render, send, _animation_id)
        except Busy as error:  # another process is drawing this player's picture
            await bot.send_message(chat_id, refusal(t, error))


def _animation_id(message: Message) -> str:
    assert message.animation is not None
    return message.animation.file_id


async def uploaded_card(
    bot: Bot, runtime: Runtime, user_id: int, stored: StoredGame, t: Translator, *, fresh: bool
) -> str:
    """The card's file id for an inline result; `fresh`: sent again first, so a refused stored
    id is replaced. A card not sent before is uploaded to the player's private chat, silently,
    and deleted there at once: inline results can only show pictures Telegram already has."""
    figures = await _figures(runtime, stored, t)
    key = images.card_key(t, figures)
    cached = None if fresh else await runtime.sharing.file_id(key)
    if cached is not None:
        return cached
    message = await send_card(bot, runtime, user_id, stored, t, None, disable_notification=True)
    try:
        await message.delete()
    except TelegramError as error:
        log.info("uploaded card %s not deleted: %s", message.message_id, error)
    return photo_id(message)
