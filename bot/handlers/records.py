"""/record: the player's latest game as a file anyone can check with `bot2048 verify`."""

from __future__ import annotations

from telegram import Update

from bot.chat.cards import group_clock
from bot.chat.posts import reply
from bot.chat.records import send_record
from bot.handlers.context import BotContext
from bot.presentation import fairness
from bot.presentation.leaderboards import end_time
from bot.services.verification import RecordStatus


async def record(update: Update, context: BotContext) -> None:
    audience, runtime = context.audience, context.runtime
    t = audience.for_chat
    if audience.in_group:
        reply(context.application, update, fairness.in_private(t))
        return
    answer = await runtime.verification.latest_record(audience.player.user_id)
    status = answer.status
    if status is RecordStatus.READY:
        assert answer.data is not None and answer.stored is not None
        name = f"2048-record-{answer.stored.id}.json"
        caption = fairness.record_caption(t)
        send_record(context.application, update, audience.chat_id, name, answer.data, caption)
    elif status is RecordStatus.DAILY_RUNNING:
        assert answer.reveal_at is not None
        left = answer.reveal_at - runtime.daily.now()
        reply(context.application, update, fairness.daily_secret(t, left))
    elif status is RecordStatus.CHALLENGE_RUNNING:
        assert answer.stored is not None and answer.stored.challenge_id is not None
        challenge = await runtime.storage.challenge(answer.stored.challenge_id)
        assert challenge is not None
        ends = end_time(t, challenge.ends_at, await group_clock(runtime, challenge.chat_id))
        reply(context.application, update, fairness.challenge_secret(t, ends))
    elif status is RecordStatus.PLAYING:
        reply(context.application, update, fairness.still_playing(t))
    elif status is RecordStatus.NO_LOG:
        reply(context.application, update, fairness.no_log(t))
    else:
        reply(context.application, update, fairness.no_game(t))
