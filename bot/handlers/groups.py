"""Group-only behaviour: the group leaderboard and who may change the group's language."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatMemberStatus

import engine
from bot.handlers.context import Audience, BotContext
from bot.handlers.replies import reply
from bot.presentation.leaderboards import group_leaderboard

TOP = 10


async def is_admin(context: BotContext, chat_id: int, user_id: int) -> bool:
    member = await context.bot.get_chat_member(chat_id, user_id)
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


async def speaks_for_group(update: Update, context: BotContext) -> bool:
    """An admin of the group, or an anonymous admin writing as the group itself."""
    aud = context.audience
    if aud.as_group:
        message = update.effective_message
        return (
            message is not None
            and message.sender_chat is not None
            and (message.sender_chat.id == aud.chat_id)
        )
    return await is_admin(context, aud.chat_id, aud.player.user_id)


async def leaderboard(update: Update, context: BotContext, aud: Audience) -> None:
    assert update.effective_chat is not None
    storage = context.services.storage
    user_id = aud.player.user_id
    boards = {
        size: await storage.group_leaderboard(aud.chat_id, size, TOP, asker=user_id)
        for size in engine.SIZES
    }
    title = update.effective_chat.title or ""
    await reply(update, group_leaderboard(aud.post, title, boards, TOP, user_id))
