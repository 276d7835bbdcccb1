"""Group-only behaviour: the group leaderboard, who may change the group's language, and
following a group that Telegram moved to a new id."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatMemberStatus

import engine
from bot.handlers import challenges
from bot.handlers.context import Audience, BotContext
from bot.handlers.replies import reply
from bot.presentation.leaderboards import group_leaderboard

TOP = 10
CHALLENGE_TOP = 3  # a running challenge's leaders in /best; its card shows more
PAST_CHALLENGES = 3  # finished challenges whose winners /best recalls


async def is_admin(context: BotContext, chat_id: int, user_id: int) -> bool:
    member = await context.bot.get_chat_member(chat_id, user_id)
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


async def speaks_for_group(update: Update, context: BotContext) -> bool:
    """An admin of the group, or an anonymous admin writing as the group itself."""
    audience = context.audience
    if audience.as_group:
        message = update.effective_message
        return (
            message is not None
            and message.sender_chat is not None
            and (message.sender_chat.id == audience.chat_id)
        )
    return await is_admin(context, audience.chat_id, audience.player.user_id)


async def leaderboard(update: Update, context: BotContext, audience: Audience) -> None:
    """The group's best games per board size, then its challenges: running and past."""
    assert update.effective_chat is not None
    storage = context.runtime.storage
    user_id = audience.player.user_id
    boards = {
        size: await storage.group_leaderboard(audience.chat_id, size, TOP, asker=user_id)
        for size in engine.SIZES
    }
    running = [
        (challenge, await storage.challenge_standings(challenge.id, CHALLENGE_TOP))
        for challenge in await storage.open_challenges(audience.chat_id)
    ]
    finished = []
    for challenge in await storage.finished_challenges(audience.chat_id, PAST_CHALLENGES):
        winner = await storage.challenge_standings(challenge.id, 1)
        finished.append((challenge, winner[0] if winner else None))
    title = update.effective_chat.title or ""
    reply(
        context,
        update,
        group_leaderboard(
            audience.for_chat, audience.chat_id, title, boards, TOP, user_id, running, finished
        ),
    )


async def migrated(update: Update, context: BotContext) -> None:
    """Telegram upgraded a basic group to a supergroup, with a new id: follow it there.

    Both chats get a notice (the old one names the new id, the new one the old id); the
    first to be handled moves the group, the other finds nothing left to move.
    """
    message = update.effective_message
    assert message is not None
    if message.migrate_to_chat_id is not None:
        old, new = message.chat.id, message.migrate_to_chat_id
    else:
        assert message.migrate_from_chat_id is not None
        old, new = message.migrate_from_chat_id, message.chat.id
    await challenges.follow_group(context.bot, context.runtime, old, new)
