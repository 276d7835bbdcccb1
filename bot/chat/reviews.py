"""A game's review sent into the player's chat: one picture of the costliest moves, with totals.

The review is made and drawn in the picture pool, beside the chat's updates (a task, as a
replay is), inside the place in the picture queue the handler claimed for it: taps go on
meanwhile, and the player's next 🔎 or /review is told it is on its way. A review drawn
before (same game, same language, same name) goes again by Telegram's file id. Why a game
gets no review now is worded here once, for the chat and the Mini App alike (`refusal`).
"""

from __future__ import annotations

from telegram import Bot, Message

from bot.chat.pictures import Media, photo_id, send_picture
from bot.metrics import RENDER
from bot.models import StoredGame
from bot.presentation import images, reviews
from bot.presentation.i18n import Translator, group_zone
from bot.presentation.leaderboards import end_time
from bot.presentation.names import pictured_name
from bot.services.players import PlayerService
from bot.services.reviews import ReviewAccess, ReviewStatus, review_slot_key
from bot.services.workers import Busy, RenderSlot
from bot.wiring import Runtime


async def send_review(
    bot: Bot, runtime: Runtime, chat_id: int, stored: StoredGame, t: Translator, slot: RenderSlot
) -> None:
    """Make, draw and send the review of `stored` in `slot`, the place claimed for it."""
    with slot:
        try:
            review = await runtime.reviews.review(stored)
        except Busy:  # another process is making this player's review
            await bot.send_message(chat_id, reviews.on_its_way(t))
            return
        caption = reviews.totals(t, review)
        if not review.costliest:  # every move was the solver's: nothing to picture
            await bot.send_message(chat_id, caption)
            return
        owner = await runtime.storage.player(stored.owner_id)
        name = pictured_name(t, owner.name, stored.owner_id)
        size, costs = stored.game.size, review.costliest

        async def render() -> bytes:
            with RENDER.labels("review").time():
                return await runtime.workers.render(
                    review_slot_key(stored.owner_id), images.review_png, t, size, name, costs
                )

        async def send(photo: Media) -> Message:
            return await bot.send_photo(chat_id, photo, caption=caption)

        key = images.review_key(t, size, name, costs)
        try:
            await send_picture(runtime, chat_id, key, render, send, photo_id)
        except Busy:
            await bot.send_message(chat_id, reviews.on_its_way(t))


async def refusal(
    t: Translator, access: ReviewAccess, players: PlayerService, now: float
) -> str | None:
    """Why this game gets no review now; None when it may be reviewed. A running challenge's
    end is told on its group's clock, a daily's as the time left from `now`."""
    status = access.status
    if status is ReviewStatus.READY:
        return None
    if status is ReviewStatus.CHALLENGE_RUNNING:
        assert access.challenge is not None
        zone = group_zone(await players.chat_language(access.challenge.chat_id))
        return reviews.challenge_running(t, end_time(t, access.challenge.ends_at, zone))
    if status is ReviewStatus.DAILY_RUNNING:
        assert access.reveal_at is not None
        return reviews.daily_running(t, access.reveal_at - now)
    texts = {
        ReviewStatus.NO_GAME: reviews.no_game,
        ReviewStatus.NO_LOG: reviews.no_log,
        ReviewStatus.PLAYING: reviews.still_playing,
        ReviewStatus.NOT_YOURS: reviews.not_yours,
        ReviewStatus.STALE: reviews.stale,
    }
    return texts[status](t)
