"""A group that Telegram moved to a new id: the bot follows it there."""

from __future__ import annotations

from telegram import Update

from bot.chat.cards import follow_group
from bot.handlers.context import BotContext


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
    await follow_group(context.bot, context.runtime, old, new)
