"""Showing games off: /share, /replay, inline mode's cards and duels, and joining a duel.

The pictures themselves are drawn and sent by bot/chat/pictures.py.
"""

from __future__ import annotations

import logging

from telegram import InlineQuery, InlineQueryResultCachedPhoto, InlineQueryResultsButton, Update
from telegram.error import BadRequest, Forbidden

import engine
from bot.chat.boards import send_board
from bot.chat.pictures import duel_link, post_card, refusal, send_replay, uploaded_card
from bot.chat.posts import reply, update_key
from bot.codecs import parse_replay_args, parse_share_query
from bot.handlers.context import BotContext, display_name
from bot.models import Player, StoredGame
from bot.presentation import captions
from bot.presentation.i18n import Translator
from bot.presentation.render import size_name
from bot.services.sharing import DuelStatus
from bot.services.workers import Busy, Crowded
from bot.wiring import INLINE_ANSWER_SECONDS, InlineAnswer

log = logging.getLogger(__name__)
# An inline result: its id, the game on its card, the caption, and the duel link if any.
Offer = tuple[str, StoredGame, str, str | None]


async def share(update: Update, context: BotContext) -> None:
    """A picture of the game here (running, else the latest), with ▶️ for a duel and 📤."""
    audience = context.audience
    t = audience.for_chat
    stored = await context.runtime.sharing.subject(audience.chat_id, audience.player.user_id)
    if stored is None or stored.game.moves == 0:
        reply(context.application, update, captions.nothing_to_show(t))
        return
    await post_card(context.application, update, audience.chat_id, stored, t)


async def replay(update: Update, context: BotContext) -> None:
    """`/replay`: this chat's running or latest game; `/replay best [size]`: the best one."""
    audience = context.audience
    t = audience.for_chat
    ask = parse_replay_args(context.args or [])
    if ask is None:
        reply(context.application, update, t._("Try /replay, or /replay best 4, 5 or 6."))
        return
    sharing = context.runtime.sharing
    stored = await sharing.subject(audience.chat_id, audience.player.user_id)
    if ask.best:
        size = ask.size or (stored.game.size if stored else engine.SIZES[0])
        stored = (await sharing.best_games(audience.player.user_id)).get(size)
        if stored is None:
            reply(
                context.application,
                update,
                t._("You have no {size} game yet.", size=size_name(t, size)),
            )
            return
    if stored is None or stored.game.moves == 0:
        reply(context.application, update, captions.nothing_to_show(t))
        return
    if stored.actions is None:
        reply(context.application, update, t._("This game is too old to replay."))
        return
    # Its place in the picture queue is taken now, so a full queue is said at once.
    try:
        slot = context.runtime.workers.claim(stored.owner_id)
    except (Busy, Crowded) as error:
        reply(context.application, update, refusal(t, error))
        return
    if not await context.runtime.update_log.first_to_post(update_key(update)):
        slot.release()
        return  # another delivery of this /replay draws and sends it
    # A replay takes seconds to draw: do it beside this chat's updates, not in front of them.
    replaying = send_replay(context.bot, context.runtime, audience.chat_id, stored, t, slot)
    context.application.create_task(replaying, update=update)


async def inline_query(update: Update, context: BotContext) -> None:
    """`@bot` in any chat: a duel on the player's game, and their best card per size.

    The game is the one the query names, from a board's or a card's 📤 (a challenge entry,
    say), when it is the player's own; else their private chat's. Inline results can only
    show pictures Telegram already has, so a card not sent before is uploaded to the
    player's private chat, silently, and deleted there at once. An answer
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
    t = await context.sender_translator(user)
    sharing = context.runtime.sharing
    offers: list[Offer] = []
    latest = await _offered(context, user.id, query.query)
    sender = Player(user.id, display_name(user))
    if (
        latest is not None
        and latest.game.moves > 0
        and not await sharing.in_running_challenge(latest)
    ):
        link = duel_link(context.bot, latest)
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


async def _offered(context: BotContext, user_id: int, text: str) -> StoredGame | None:
    named = parse_share_query(text)
    if named is not None:
        stored = await context.runtime.storage.game(named)
        if stored is not None and stored.owner_id == user_id:
            return stored
    return await context.runtime.sharing.latest_anywhere(user_id)


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
            photo = await uploaded_card(
                context.bot, context.runtime, user.id, stored, t, fresh=fresh
            )
            results.append(
                InlineQueryResultCachedPhoto(
                    result_id,
                    photo,
                    caption=caption,
                    reply_markup=captions.card_keyboard(t, link, shared=None),
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


async def join_duel(update: Update, context: BotContext) -> None:
    """`/start d…` from a ▶️ link: a new game from the shared game's seed."""
    assert context.args
    audience = context.audience
    t = audience.for_chat
    runtime = context.runtime
    result = await runtime.sharing.start_duel(context.args[0], audience.player.user_id)
    if result.status is DuelStatus.INVALID:
        gone = t._("This link doesn't work any more. Ask your friend to share their game again.")
        reply(context.application, update, gone)
        return
    if result.status is DuelStatus.CHALLENGE_RUNNING:
        reply(context.application, update, captions.challenge_running(t))
        return
    if result.status is DuelStatus.OWN:
        reply(context.application, update, t._("That's your own game: send the link to a friend."))
        return
    assert result.rival is not None and result.target is not None and result.entry is not None
    rival = await runtime.players.player(result.rival.owner_id)
    reply(context.application, update, captions.duel_started(t, rival, result.target))
    send_board(context.application, update, result.entry, t, audience.player.view)
