"""Challenges on Telegram: /challenge in a group, and joining one by its deep link.

What the group sees of a challenge (its card, kept up to date at a few edits a minute, its
end and winner) is sent by bot/chat/cards.py and bot/chat/endings.py.
"""

from __future__ import annotations

from telegram import Update

from bot.chat.announcements import send_owed
from bot.chat.boards import send_board
from bot.chat.cards import group_clock
from bot.chat.endings import schedule_end
from bot.chat.posts import reply, update_key
from bot.codecs import ChallengeArgsError, parse_challenge_args
from bot.handlers.context import BotContext
from bot.presentation.leaderboards import end_time
from bot.presentation.names import group_name
from bot.services.challenges import MAX_OPEN_PER_GROUP, JoinStatus


async def challenge(update: Update, context: BotContext) -> None:
    audience = context.audience
    assert update.effective_chat is not None
    t = audience.for_chat
    if not audience.in_group:
        reply(
            context.application,
            update,
            t._("Challenges are played in groups: add me to a group and send /challenge there."),
        )
        return
    try:
        size, duration = parse_challenge_args(context.args or [])
    except ChallengeArgsError:
        reply(
            context.application,
            update,
            t._(
                "Start a challenge with <code>/challenge</code>, a board size (4, 5 or 6) and "
                "how long it runs, from 1 minute to 7 days. For example: <code>/challenge 5 "
                "2h</code>, <code>/challenge 6 2 hours</code> or <code>/challenge 30 min</code>. "
                "Without a size or a duration, it runs on 4×4 for 24 hours."
            ),
        )
        return
    runtime = context.runtime
    assert update.effective_message is not None
    created = await runtime.challenges.create(
        audience.chat_id,
        update.effective_chat.title or "",
        t.language,
        audience.player.user_id,
        size,
        duration,
        update_key(update),
        reply_to=update.effective_message.message_id,
    )
    if created is None:
        reply(
            context.application,
            update,
            t.ngettext(
                "This group already has {n} challenge running. Wait until it ends.",
                "This group already has {n} challenges running. Wait until one ends.",
                MAX_OPEN_PER_GROUP,
            ),
        )
        return
    schedule_end(context.application, created)
    # The card is owed from the commit that made the challenge: the delivery that made it
    # holds it and posts it now; a repeated delivery finds nothing of its own to post.
    await send_owed(context.bot, runtime)


async def join(update: Update, context: BotContext) -> None:
    """`/start <payload>` in private, from a challenge's card: enter it and get its board."""
    assert context.args
    audience, runtime = context.audience, context.runtime
    t = audience.for_chat
    result = await runtime.challenges.join(
        context.args[0], audience.player.user_id, update_key(update)
    )
    if result.status is JoinStatus.INVALID:
        reply(
            context.application,
            update,
            t._("This challenge link doesn't work. Ask for a new one in the group."),
        )
        return
    assert result.challenge is not None
    if result.status is JoinStatus.ENDED:
        # An entrant back on an old link gets no live board: its arrows would only refuse.
        ended = t._("This challenge has ended.")
        if result.entry is not None:
            ended = t._("This challenge has ended. Your score is final.")
        reply(context.application, update, ended)
        return
    if result.status is JoinStatus.JOINED:
        zone = await group_clock(runtime, result.challenge.chat_id)
        reply(
            context.application,
            update,
            t._(
                "You've joined the challenge in {title}! Everyone gets the same tiles. "
                "It ends {time}.",
                title=group_name(t, result.challenge.chat_title, result.challenge.chat_id),
                time=end_time(t, result.challenge.ends_at, zone),
            ),
        )
    assert result.entry is not None
    send_board(context.application, update, result.entry, t, audience.player.view)
