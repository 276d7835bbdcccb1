"""Group-only behaviour: the group leaderboard and who may change the group's language."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatMemberStatus
from telegram.ext import ContextTypes

import engine
from bot.handlers.common import Audience, services
from bot.presentation.leaderboards import group_leaderboard

TOP = 10


async def is_admin(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    member = await context.bot.get_chat_member(chat_id, user_id)
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


async def leaderboard(update: Update, context: ContextTypes.DEFAULT_TYPE, aud: Audience) -> None:
    assert update.effective_chat is not None and update.effective_message is not None
    storage = services(context).storage
    user_id = aud.player.user_id
    boards = {
        size: await storage.group_leaderboard(aud.chat_id, size, TOP, asker=user_id)
        for size in engine.SIZES
    }
    title = update.effective_chat.title or ""
    await update.effective_message.reply_text(
        group_leaderboard(aud.post, aud.chat_id, title, boards, TOP, user_id)
    )
