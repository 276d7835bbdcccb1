"""Per-update bookkeeping, before any handler runs (group -1): names and languages.

Every update with a user refreshes that player's saved name (for leaderboards) and finds the
languages to answer in, so the handlers themselves only read `context.audience`. Handlers
whose update must apply once however often Telegram delivers it pass `update_key`.
"""

from __future__ import annotations

from telegram import Update, User

from bot.handlers.context import GROUP_TYPES, Audience, BotContext
from bot.presentation.i18n import Translator, player_language, translator

NAME_LIMIT = 64


def display_name(user: User) -> str:
    return user.full_name[:NAME_LIMIT]


def update_key(update: Update) -> str:
    """What a redelivery of this update shares with its first delivery, and nothing else does.

    A tap is its callback query; a message is its chat and message id, and an edit of it
    (a new command in an old message) adds the moment of the edit.
    """
    if update.callback_query is not None:
        return f"q{update.callback_query.id}"
    message = update.effective_message
    assert message is not None, "a handler that applies once answers a message or a tap"
    key = f"m{message.chat.id}:{message.message_id}"
    if update.edited_message is not None and message.edit_date is not None:
        key += f":{int(message.edit_date.timestamp())}"
    return key


async def track(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    players = context.runtime.players
    message = update.effective_message
    # Every anonymous admin of every group is the same "Group" user: never a player's name.
    as_group = message is not None and message.sender_chat is not None
    if not as_group:
        await players.remember_name(chat.id, user.id, display_name(user), user.language_code)
    player = await players.player(user.id)
    for_sender = translator(player_language(player, user.language_code))
    in_group = chat.type in GROUP_TYPES
    group_language = await players.chat_language(chat.id) if in_group else None
    for_chat = translator(group_language) if group_language else for_sender
    context.audience = Audience(player, for_sender, for_chat, chat.id, in_group, as_group)


async def sender_translator(context: BotContext, user: User) -> Translator:
    """The language a toast for `user` alone is in: their choice, else Telegram's."""
    player = await context.runtime.players.player(user.id)
    return translator(player_language(player, user.language_code))
