"""What every handler needs: the services, who is asking in which language, drawing a board."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from telegram import Bot, CallbackQuery, Message, Update, User
from telegram.constants import ChatType
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter
from telegram.ext import ContextTypes

from bot.delivery.redraw import Redrawer
from bot.delivery.throttle import Throttle
from bot.models import Player, StoredGame
from bot.presentation import render
from bot.presentation.i18n import Translator, resolve_language, translator
from bot.services.challenges import ChallengeService
from bot.services.games import GameService
from bot.services.hints import HintService
from bot.storage import Storage

log = logging.getLogger(__name__)
NAME_LIMIT = 64
GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)
KNOWN_NAMES_LIMIT = 100_000  # players whose saved name is remembered in memory


@dataclass
class Services:
    storage: Storage
    games: GameService
    challenges: ChallengeService
    redrawer: Redrawer
    throttle: Throttle
    hints: HintService
    hint_throttle: Throttle
    # Seconds between two edits of one challenge card: a few a minute, whatever the load.
    card_interval: float = 20.0
    # Names already saved, so an unchanged name costs no database write per update.
    known_names: dict[int, str] = field(default_factory=dict)


def services(context: ContextTypes.DEFAULT_TYPE) -> Services:
    return context.bot_data["services"]


@dataclass(frozen=True, slots=True)
class Audience:
    """Who sent an update, and the languages to answer in.

    `own` is the sender's language, for toasts meant for them alone; `post` is what the bot
    writes into the chat: the group's language when its admins chose one, else `own`.
    """

    player: Player
    own: Translator
    post: Translator
    chat_id: int
    in_group: bool


def display_name(user: User) -> str:
    return user.full_name[:NAME_LIMIT]


async def audience(context: ContextTypes.DEFAULT_TYPE, update: Update) -> Audience:
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    svc = services(context)
    name = display_name(user)
    if svc.known_names.get(user.id) != name:
        await svc.storage.remember_name(user.id, name)
        if len(svc.known_names) >= KNOWN_NAMES_LIMIT:
            svc.known_names.clear()  # only a cache: forgetting costs each player one write
        svc.known_names[user.id] = name
    player = await svc.storage.player(user.id)
    own = translator(resolve_language(player.language, user.language_code))
    in_group = chat.type in GROUP_TYPES
    group_language = await svc.storage.chat_language(chat.id) if in_group else None
    post = translator(group_language) if group_language else own
    return Audience(player, own, post, chat.id, in_group)


async def sender_translator(context: ContextTypes.DEFAULT_TYPE, user: User) -> Translator:
    """The language a toast for `user` alone is in: their choice, else Telegram's."""
    player = await services(context).storage.player(user.id)
    return translator(resolve_language(player.language, user.language_code))


async def board_message(
    svc: Services, stored: StoredGame, t: Translator, view: str
) -> tuple[str, render.InlineKeyboardMarkup]:
    best = await svc.storage.best_score(stored.owner_id, stored.game.size)
    owner = None
    if stored.chat_id != stored.owner_id:
        owner = await svc.storage.player(stored.owner_id)
    challenge = None
    if stored.challenge_id is not None:
        challenge = await svc.storage.challenge(stored.challenge_id)
    text = render.board_text(t, stored.game, best=best, view=view, owner=owner, challenge=challenge)
    keyboard = render.board_keyboard(
        t, stored.id, stored.game, hint=stored.hint, hints_on=stored.challenge_id is None
    )
    return text, keyboard


async def send_board(
    bot: Bot, svc: Services, stored: StoredGame, t: Translator, view: str
) -> Message:
    """Post the board as a new message and make it the game's board message."""
    text, markup = await board_message(svc, stored, t, view)
    message = await bot.send_message(stored.chat_id, text, reply_markup=markup)
    await svc.storage.link_message(stored.id, message.message_id)
    return message


async def edit_board(
    bot: Bot, svc: Services, stored: StoredGame, message_id: int, t: Translator, view: str
) -> None:
    """Redraw the board in the message that was tapped; a deleted message gets a fresh board."""
    text, markup = await board_message(svc, stored, t, view)
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
            await send_board(bot, svc, stored, t, view)
            return
        raise
    if stored.message_id != message_id:
        await svc.storage.link_message(stored.id, message_id)


def request_redraw(
    context: ContextTypes.DEFAULT_TYPE,
    stored: StoredGame,
    message_id: int,
    t: Translator,
    view: str,
) -> None:
    """Have the board message show the game as saved, soon; repeated requests coalesce."""
    svc = services(context)

    async def draw() -> None:
        latest = await svc.storage.game(stored.id)
        if latest is None:
            return
        try:
            await edit_board(context.bot, svc, latest, message_id, t, view)
        except (NetworkError, RetryAfter, Forbidden) as error:
            # Timeouts, a flood limit past its retries, a player who blocked the bot: the
            # move is saved, and the next tap (or /start) draws the board again.
            log.warning("board %s not redrawn in chat %s: %s", stored.id, stored.chat_id, error)
            return
        if not svc.storage.shared:
            return  # this process's own later taps have asked for their redraw already
        # Another process may have drawn a newer move while this edit was on its way, and
        # this edit may have landed after it: then draw again.
        now = await svc.storage.game(stored.id)
        if now is not None and (now.game, now.hint) != (latest.game, latest.hint):
            svc.redrawer.request(stored.chat_id, message_id, draw, replace=False)

    svc.redrawer.request(stored.chat_id, message_id, draw)


def offered(query: CallbackQuery) -> bool:
    """Whether the tapped message really has a button with this data (forged data has not)."""
    message = query.message
    markup = message.reply_markup if isinstance(message, Message) else None
    return markup is not None and any(
        button.callback_data == query.data for row in markup.inline_keyboard for button in row
    )


async def show_text(query: CallbackQuery, text: str) -> None:
    """Replace the tapped message's text (and drop its keyboard); a double tap finds it done."""
    try:
        await query.edit_message_text(text)
    except BadRequest as error:
        log.info("message of callback query %s not replaced: %s", query.id, error.message)


async def show_keyboard(query: CallbackQuery, markup: render.InlineKeyboardMarkup) -> None:
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
