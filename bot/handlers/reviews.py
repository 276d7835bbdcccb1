"""The review of a finished game: `/review`, and the 🔎 under a finished game's board.

Both ask the review service which game may be reviewed, claim a place in the picture queue
at once (so "on its way" and "try again in a minute" are said at once too), and leave the
review to a task beside the chat's updates (bot/chat/reviews.py): no tap waits for it.
"""

from __future__ import annotations

from telegram import Update

from bot import codecs
from bot.chat.posts import answer, reply, update_key
from bot.chat.reviews import refusal, send_review
from bot.handlers.context import BotContext, offered
from bot.presentation import captions, reviews
from bot.presentation.i18n import Translator
from bot.services.reviews import ReviewAccess
from bot.services.workers import Busy, Crowded


async def review(update: Update, context: BotContext) -> None:
    """`/review` in private: the player's last finished game."""
    audience = context.audience
    t = audience.for_chat
    if audience.in_group:
        reply(context.application, update, reviews.in_private(t))
        return
    runtime = context.runtime
    access = await runtime.reviews.latest(audience.player.user_id)
    refused = await refusal(t, access, runtime.players, runtime.daily.now())
    if refused is None:
        refused = await _begin(update, context, access, t)
    if refused is not None:
        reply(context.application, update, refused)


async def on_review_button(update: Update, context: BotContext) -> None:
    """🔎: the game the button names, if it is the tapper's and as it was when drawn."""
    query = update.callback_query
    assert query is not None
    audience = context.audience
    t = audience.for_sender
    if audience.in_group:
        await answer(query, reviews.in_private(t))
        return
    if not offered(query):  # taken off the board since, or forged onto it
        await answer(query, reviews.stale(t))
        return
    tap = codecs.parse_review_button(query.data)
    runtime = context.runtime
    access = await runtime.reviews.tapped(query.from_user.id, tap.game_id, tap.actions)
    refused = await refusal(t, access, runtime.players, runtime.daily.now())
    if refused is None:
        refused = await _begin(update, context, access, t)
    await answer(query, reviews.started(t) if refused is None else refused)


async def _begin(
    update: Update, context: BotContext, access: ReviewAccess, t: Translator
) -> str | None:
    """Claim the player's place in the picture queue and start the review beside the chat's
    updates; what to say instead when the queue has no place for it."""
    stored = access.stored
    assert stored is not None
    runtime = context.runtime
    try:
        slot = runtime.reviews.claim(stored.owner_id)
    except Busy:
        return reviews.on_its_way(t)
    except Crowded:
        return captions.crowded(t)
    if not await runtime.update_log.first_to_post(update_key(update)):
        slot.release()
        return None  # another delivery of this update makes the review
    making = send_review(context.bot, runtime, stored.owner_id, stored, t, slot)
    context.application.create_task(making, update=update)
    return None
