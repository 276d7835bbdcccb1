"""The typed handler context: the process's runtime, and who is asking in which language.

Handlers receive a `BotContext` (registered through `ContextTypes`, as in python-telegram-bot's
contexttypesbot example) instead of fishing untyped objects out of `bot_data` by string key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from telegram import CallbackQuery, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot

from bot.codecs import GAME_PATTERN, GameTap, parse_game_tap
from bot.models import Player
from bot.presentation.i18n import Translator, player_language, translator
from bot.services.players import Seen
from bot.wiring import BotData, Runtime, runtime_of

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)
NAME_LIMIT = 64


def display_name(user: User) -> str:
    return user.full_name[:NAME_LIMIT]


def tapped_game(update: Update) -> int | None:
    """The game a tap on a board's button is about, if the update is one."""
    tap = _game_tap(update)
    return None if tap is None else tap.game_id


def asks_hint(update: Update) -> bool:
    """Whether the update is a tap on a board's 💡."""
    tap = _game_tap(update)
    return tap is not None and tap.action == "hint"


def _game_tap(update: Update) -> GameTap | None:
    query = update.callback_query
    if query is None or query.data is None or not re.fullmatch(GAME_PATTERN, query.data):
        return None
    return parse_game_tap(query.data)


def offered(query: CallbackQuery) -> bool:
    """Whether the tapped message really has a button with this data (forged data has not)."""
    message = query.message
    markup = message.reply_markup if isinstance(message, Message) else None
    return markup is not None and any(
        button.callback_data == query.data for row in markup.inline_keyboard for button in row
    )


@dataclass(frozen=True, slots=True)
class Audience:
    """Who sent an update, and the languages to answer in.

    `for_sender` is the sender's language, for toasts meant for them alone; `for_chat` is
    what the bot writes into the chat: the group's language when its admins chose one, else
    `for_sender`.
    """

    player: Player
    for_sender: Translator
    for_chat: Translator
    chat_id: int
    in_group: bool
    # An anonymous admin writing as the group: Telegram hides who it is, so no player.
    as_group: bool = False


class BotContext(
    CallbackContext[ExtBot[None], dict[object, object], dict[object, object], BotData]
):
    """A handler's context: `runtime`, and the `audience` bookkeeping found for the update."""

    def __init__(
        self, application: Application, chat_id: int | None = None, user_id: int | None = None
    ) -> None:
        super().__init__(application=application, chat_id=chat_id, user_id=user_id)
        self._audience: Audience | None = None
        # What a tap's or message's bookkeeping reads, read as its budget was spent
        # (handlers/throttling.py), so that bookkeeping reads it no second time.
        self.tapper: Seen | None = None
        # A 💡 tap: whether the hints' throttle allowed it, spent with the tap's budget.
        self.hint_allowed = False

    @property
    def runtime(self) -> Runtime:
        return runtime_of(self.application)

    @property
    def audience(self) -> Audience:
        """Set for every update with a user and a chat, before any handler runs."""
        assert self._audience is not None, "bookkeeping runs in group -1 for every update"
        return self._audience

    @audience.setter
    def audience(self, audience: Audience) -> None:
        self._audience = audience

    async def sender_translator(self, user: User) -> Translator:
        """The language a toast for `user` alone is in: their choice, else Telegram's."""
        player = await self.runtime.players.player(user.id)
        return translator(player_language(player, user.language_code))

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        member = await self.bot.get_chat_member(chat_id, user_id)
        return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)

    async def speaks_for_group(self, message: Message | None) -> bool:
        """An admin of the group, or an anonymous admin writing as the group itself: who may
        change what the whole group gets. Telegram hides an anonymous admin's account, and
        only admins can write as the group."""
        audience = self.audience
        if audience.as_group:
            return (
                message is not None
                and message.sender_chat is not None
                and message.sender_chat.id == audience.chat_id
            )
        return await self.is_admin(audience.chat_id, audience.player.user_id)


CONTEXT_TYPES = ContextTypes(context=BotContext, bot_data=BotData)
