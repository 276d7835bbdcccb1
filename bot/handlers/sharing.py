"""Showing games off: /share, /replay, inline mode's cards and duels, and duel results.

Pictures are drawn in the worker pool (one job per player at a time) and uploaded once:
every later send of the same picture goes by Telegram's file id, kept in the database.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from telegram import (
    Bot,
    InlineKeyboardMarkup,
    InlineQuery,
    InlineQueryResultCachedPhoto,
    InlineQueryResultsButton,
    Message,
    Update,
)
from telegram.constants import ChatAction
from telegram.error import BadRequest, Forbidden, TelegramError

import engine
from bot.handlers.announcements import send_owed, sends
from bot.handlers.board_messages import send_board
from bot.handlers.bookkeeping import display_name, sender_translator, update_key
from bot.handlers.context import INLINE_ANSWER_SECONDS, BotContext, InlineAnswer, Runtime
from bot.handlers.replies import post_in_turn, reply, send_reply
from bot.metrics import RENDER
from bot.models import Obligation, ObligationKind, Player, StoredGame
from bot.presentation import captions, images
from bot.presentation.i18n import Translator, player_language, translator
from bot.presentation.names import pictured_name
from bot.presentation.render import size_name
from bot.services.games import parse_size
from bot.services.sharing import DuelStatus, duel_payload
from bot.services.workers import Busy, Crowded, RenderSlot

log = logging.getLogger(__name__)
Media = bytes | str  # a fresh upload, or the file id of an earlier one
# An inline result: its id, the game on its card, the caption, and the duel link if any.
Offer = tuple[str, StoredGame, str, str | None]


async def _send_picture(
    context: BotContext,
    chat_id: int,
    key: str,
    render: Callable[[], Awaitable[bytes]],
    send: Callable[[Media], Awaitable[Message]],
    file_id_of: Callable[[Message], str],
) -> Message:
    """Send by the file id of an earlier upload if there is one, else draw and upload."""
    sharing = context.runtime.sharing
    cached = await sharing.file_id(key)
    if cached is not None:
        try:
            return await send(cached)
        except BadRequest as error:  # a file id from another bot, say: upload anew
            log.info("file id for %s refused (%s); uploading again", key, error.message)
    message = await send(await render())
    await sharing.remember_file(chat_id, key, file_id_of(message))
    return message


async def _figures(context: BotContext, stored: StoredGame, t: Translator) -> images.CardFigures:
    """What a card shows, the owner's name cleaned as every text cleans it."""
    storage = context.runtime.storage
    best = await storage.best_score(stored.owner_id, stored.game.size)
    name = (await storage.player(stored.owner_id)).name
    return images.card_figures(stored.game, best, pictured_name(t, name, stored.owner_id))


async def _card(
    context: BotContext,
    chat_id: int,
    stored: StoredGame,
    t: Translator,
    caption: str | None,
    **options: object,
) -> Message:
    figures = await _figures(context, stored, t)
    workers = context.runtime.workers

    async def render() -> bytes:
        with RENDER.labels("card").time():
            return await workers.run_alone(stored.owner_id, images.card_png, t, figures)

    async def send(photo: Media) -> Message:
        return await context.bot.send_photo(chat_id, photo, caption=caption, **options)  # type: ignore[arg-type]

    return await _send_picture(
        context, chat_id, images.card_key(t, figures), render, send, _photo_id
    )


def _photo_id(message: Message) -> str:
    return message.photo[-1].file_id


def _duel_link(context: BotContext, stored: StoredGame) -> str | None:
    payload = duel_payload(stored)
    return None if payload is None else captions.deep_link(context.bot.username, payload)


async def card_message(
    context: BotContext, stored: StoredGame, t: Translator
) -> tuple[str, InlineKeyboardMarkup]:
    """The card's caption and buttons: ▶️ for a duel when the game has one, and 📤."""
    # A running challenge's tiles stay secret: its entry is shown, but offers no duel.
    secret = await context.runtime.sharing.in_running_challenge(stored)
    link = None if secret else _duel_link(context, stored)
    owner = await context.runtime.players.player(stored.owner_id)
    if link is None:  # a running challenge's entry, or a game from before actions were logged
        caption = captions.card_caption(t, owner, stored.game)
    else:
        caption = captions.duel_caption(t, owner, stored.game)
    return caption, captions.card_keyboard(t, link, context.bot.supports_inline_queries)


async def send_card(context: BotContext, stored: StoredGame, t: Translator) -> None:
    """The game's card into its own chat, in the chat's turn (the Mini App's 📤)."""
    caption, markup = await card_message(context, stored, t)

    async def send() -> None:
        try:
            await _card(context, stored.chat_id, stored, t, caption, reply_markup=markup)
        except Busy:
            await context.bot.send_message(
                stored.chat_id, t._("Your last picture is still being made. One moment.")
            )
        except Crowded:
            await context.bot.send_message(stored.chat_id, captions.crowded(t))

    post_in_turn(context, None, stored.chat_id, send)


async def share(update: Update, context: BotContext) -> None:
    """A picture of the game here (running, else the latest), with ▶️ for a duel and 📤."""
    audience = context.audience
    t = audience.for_chat
    stored = await context.runtime.sharing.subject(audience.chat_id, audience.player.user_id)
    if stored is None or stored.game.moves == 0:
        reply(context, update, t._("You have no game to show yet. /new starts one."))
        return
    inline_mode = context.bot.supports_inline_queries
    caption, markup = await card_message(context, stored, t)

    async def send_card() -> None:
        try:
            await _card(context, audience.chat_id, stored, t, caption, reply_markup=markup)
        except Busy:
            await send_reply(update, t._("Your last picture is still being made. One moment."))
            return
        except Crowded:
            await send_reply(update, captions.crowded(t))
            return
        if not inline_mode:
            await send_reply(update, captions.inline_off(t))

    # Drawn and sent in the chat's turn, like every message the bot sends there.
    post_in_turn(context, update, audience.chat_id, send_card)


async def replay(update: Update, context: BotContext) -> None:
    """`/replay`: this chat's running or latest game; `/replay best [size]`: the best one."""
    audience = context.audience
    t = audience.for_chat
    args = [word.lower() for word in context.args or []]
    sharing = context.runtime.sharing
    subject = await sharing.subject(audience.chat_id, audience.player.user_id)
    if args and args[0] == "best" and len(args) <= 2:
        default = subject.game.size if subject else engine.SIZES[0]
        size = parse_size(args[1]) if len(args) == 2 else default
        if size is None:
            reply(context, update, t._("Try /replay, or /replay best 4, 5 or 6."))
            return
        stored = (await sharing.best_games(audience.player.user_id)).get(size)
        if stored is None:
            reply(context, update, t._("You have no {size} game yet.", size=size_name(t, size)))
            return
    elif args:
        reply(context, update, t._("Try /replay, or /replay best 4, 5 or 6."))
        return
    else:
        stored = subject
    if stored is None or stored.game.moves == 0:
        reply(context, update, t._("You have no game to show yet. /new starts one."))
        return
    if stored.actions is None:
        reply(context, update, t._("This game was played before replays were recorded."))
        return
    # Its place in the picture queue is taken now, so a full queue is said at once.
    try:
        slot = context.runtime.workers.claim(stored.owner_id)
    except Busy:
        reply(context, update, t._("Your last picture is still being made. One moment."))
        return
    except Crowded:
        reply(context, update, captions.crowded(t))
        return
    if not await context.runtime.update_log.first_to_post(update_key(update)):
        slot.release()
        return  # another delivery of this /replay draws and sends it
    # A replay takes seconds to draw: do it beside this chat's updates, not in front of them.
    context.application.create_task(
        _send_replay(context, audience.chat_id, stored, t, slot), update=update
    )


async def _send_replay(
    context: BotContext, chat_id: int, stored: StoredGame, t: Translator, slot: RenderSlot
) -> None:
    """Draw and send the replay in `slot`, the place in the picture queue claimed for it."""
    assert stored.actions is not None
    actions = stored.actions
    workers = context.runtime.workers
    with slot:
        figures = await _figures(context, stored, t)
        # Each frame's BEST is the best as of that frame: the player's other games, then this
        # one as it stood (frames draw the larger of the two), never this game's final score.
        storage = context.runtime.storage
        others = await storage.best_of_others(stored.owner_id, stored.game.size, stored.id)
        figures = replace(figures, best=others)
        caption = captions.replay_caption(t, Player(stored.owner_id, figures.name), stored.game)

        async def render() -> bytes:
            await context.bot.send_chat_action(chat_id, ChatAction.UPLOAD_VIDEO)
            with RENDER.labels("replay").time():
                return await workers.render(
                    stored.owner_id, images.replay_mp4, t, stored.game.seed, actions, figures
                )

        async def send(animation: Media) -> Message:
            return await context.bot.send_animation(
                chat_id, animation, caption=caption, filename="replay.mp4"
            )

        key = images.replay_key(t, stored.game.seed, actions, figures)
        try:
            await _send_picture(context, chat_id, key, render, send, _animation_id)
        except Busy:  # another process is drawing this player's picture
            await context.bot.send_message(
                chat_id, t._("Your last picture is still being made. One moment.")
            )


def _animation_id(message: Message) -> str:
    assert message.animation is not None
    return message.animation.file_id


async def inline_query(update: Update, context: BotContext) -> None:
    """`@bot` in any chat: a duel on the player's game, and their best card per size.

    Inline results can only show pictures Telegram already has, so a card not sent before
    is uploaded to the player's private chat, silently, and deleted there at once. An answer
    is kept a few seconds per player and query, as Telegram keeps it (`cache_time`): a
    client asking again, or a script asking thousands of times, costs no reads and no cards.
    """
    query = update.inline_query
    assert query is not None
    user = query.from_user
    answers = context.runtime.inline_answers
    known = answers.get((user.id, query.query))
    if known is not None:
        await _send_inline(query, known)
        return
    t = await sender_translator(context, user)
    sharing = context.runtime.sharing
    offers: list[Offer] = []
    latest = await sharing.latest_anywhere(user.id)
    sender = Player(user.id, display_name(user))
    if (
        latest is not None
        and latest.game.moves > 0
        and not await sharing.in_running_challenge(latest)
    ):
        link = _duel_link(context, latest)
        if link is not None:
            # The id names the game and how far it got: a later query shows a later card.
            result_id = f"duel-{latest.id}-{len(latest.actions or '')}"
            offers.append((result_id, latest, captions.duel_caption(t, sender, latest.game), link))
    for size, best in (await sharing.best_games(user.id)).items():
        offers.append(
            (f"best-{size}-{best.id}", best, captions.card_caption(t, sender, best.game), None)
        )
    try:
        await _answer_inline(context, query, t, offers, fresh=False)
    except BadRequest as error:
        if not _wrong_file(error):
            raise
        # A stored file id this bot cannot use (a poisoned row, a database moved to another
        # bot): the cards are sent again, which replaces every id Telegram refuses.
        log.info("inline results refused (%s); uploading the cards again", error.message)
        await _answer_inline(context, query, t, offers, fresh=True)


def _wrong_file(error: BadRequest) -> bool:
    return "wrong file identifier" in error.message.lower()


async def _send_inline(query: InlineQuery, answer: InlineAnswer) -> None:
    results, button = answer
    await query.answer(results, cache_time=INLINE_ANSWER_SECONDS, is_personal=True, button=button)


async def _answer_inline(
    context: BotContext, query: InlineQuery, t: Translator, offers: list[Offer], *, fresh: bool
) -> None:
    """Answer with the offers' cards; kept for the next same query unless a card was busy."""
    user = query.from_user
    results = []
    unreachable = not offers  # nothing to show, or nowhere to upload it: start the bot first
    try:
        for result_id, stored, caption, link in offers:
            photo = await _uploaded_card(context, user.id, stored, t, fresh=fresh)
            results.append(
                InlineQueryResultCachedPhoto(
                    result_id,
                    photo,
                    caption=caption,
                    reply_markup=captions.card_keyboard(t, link, inline_mode=False),
                )
            )
    except Forbidden:  # never started the bot, or blocked it
        results, unreachable = [], True
    except (Busy, Crowded):  # pictures are being drawn: the cards can wait for the next query
        await _send_inline(query, ([], None))
        return
    button = None
    if unreachable:
        button = InlineQueryResultsButton(t._("Play 2048 first"), start_parameter="inline")
    await _send_inline(query, (results, button))
    context.runtime.inline_answers[(user.id, query.query)] = (results, button)


async def _uploaded_card(
    context: BotContext, user_id: int, stored: StoredGame, t: Translator, *, fresh: bool
) -> str:
    """The card's file id; `fresh`: sent again first, so a refused stored id is replaced."""
    figures = await _figures(context, stored, t)
    key = images.card_key(t, figures)
    cached = None if fresh else await context.runtime.sharing.file_id(key)
    if cached is not None:
        return cached
    message = await _card(context, user_id, stored, t, None, disable_notification=True)
    try:
        await message.delete()
    except TelegramError as error:
        log.info("uploaded card %s not deleted: %s", message.message_id, error)
    return _photo_id(message)


async def join_duel(update: Update, context: BotContext, payload: str) -> None:
    """`/start d…` from a ▶️ link: a new game from the shared game's seed."""
    audience = context.audience
    t = audience.for_chat
    runtime = context.runtime
    result = await runtime.sharing.start_duel(payload, audience.player.user_id)
    if result.status is DuelStatus.INVALID:
        reply(context, update, t._("This link doesn't work. Ask for a new one."))
        return
    if result.status is DuelStatus.CHALLENGE_RUNNING:
        reply(context, update, captions.challenge_running(t))
        return
    if result.status is DuelStatus.OWN:
        reply(context, update, t._("That's your own game: send the link to a friend."))
        return
    assert result.rival is not None and result.target is not None and result.entry is not None
    rival = await runtime.players.player(result.rival.owner_id)
    reply(context, update, captions.duel_started(t, rival, result.target))
    send_board(context, update, result.entry, t, audience.player.view)


async def duel_over(context: BotContext, entry: StoredGame) -> None:
    """When a duel's game is over, both players are owed the comparison."""
    if await context.runtime.sharing.finish_duel(entry):
        await send_owed(context.bot, context.runtime)


@sends(ObligationKind.DUEL_RESULT)
async def _tell(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    """One of the two players gets the comparison, in their language."""
    result = await runtime.sharing.duel_result(obligation.subject_id)
    if result is None:
        return
    reader = obligation.chat_id
    friend = reader == result.entry.owner_id
    other = result.rival.owner_id if friend else result.entry.owner_id
    me, them = await runtime.players.player(reader), await runtime.players.player(other)
    t = translator(player_language(me))
    mine, theirs = result.entry.game.score, result.target.score
    if not friend:
        mine, theirs = theirs, mine
    text = captions.duel_result(t, mine, them, theirs, result.entry.game.size)
    try:
        await bot.send_message(reader, text)
    except (Forbidden, BadRequest) as error:
        log.warning("duel result not sent to %s: %s", reader, error)
