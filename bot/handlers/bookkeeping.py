"""Per-update bookkeeping, before any handler runs (group -1): names and languages.

Every update with a user refreshes that player's saved name (for leaderboards) and finds the
languages to answer in, so the handlers themselves only read `context.audience`.
"""

from __future__ import annotations

from telegram import Update

from bot.handlers.context import GROUP_TYPES, Audience, BotContext, display_name
from bot.presentation.i18n import player_language, translator


async def track(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    players = context.runtime.players
    message = update.effective_message
    # Every anonymous admin of every group is the same "Group" user: never a player's name.
    as_group = message is not None and message.sender_chat is not None
    renamed = not as_group and await players.remember_name(
        chat.id, user.id, display_name(user), user.language_code
    )
    # A tap's player was read as its tap was spent: read again only if renamed since.
    player = context.tapper
    if player is None or renamed:
        player = await players.player(user.id)
    for_sender = translator(player_language(player, user.language_code))
    in_group = chat.type in GROUP_TYPES
    group_language = await players.chat_language(chat.id) if in_group else None
    for_chat = translator(group_language) if group_language else for_sender
    context.audience = Audience(player, for_sender, for_chat, chat.id, in_group, as_group)
