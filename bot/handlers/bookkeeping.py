"""Per-update bookkeeping, before any handler runs (group -1): names and languages.

Every update with a user refreshes that player's saved name (for leaderboards) and finds the
languages to answer in, so the handlers themselves only read `context.audience`.
"""

from __future__ import annotations

from telegram import Update

from bot.handlers.context import GROUP_TYPES, Audience, BotContext, display_name, tapped_game
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
    in_group = chat.type in GROUP_TYPES
    # A tap's reads were made as its tap was spent: made again only if renamed since.
    seen = context.tapper
    if seen is None or renamed:
        seen = await players.seen(chat.id, user.id, in_group=in_group, game_id=tapped_game(update))
    if seen.game is not None:
        context.runtime.games.read_ahead(seen.game, seen.generation)
    player, group_language = seen.player, seen.group_language
    for_sender = translator(player_language(player, user.language_code))
    for_chat = translator(group_language) if group_language else for_sender
    context.audience = Audience(player, for_sender, for_chat, chat.id, in_group, as_group)
