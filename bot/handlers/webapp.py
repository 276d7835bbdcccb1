"""The chat's side of the Mini App: the board message catches up, and 📤 sends the card.

The Mini App's API (bot/web/miniapp/) knows nothing of Telegram's handlers; the bot hands it this
`ChatEcho`, which does what a tap would have done for the chat: a paced, coalesced redraw of
the game's board message (a new board when it has none), a challenge's card and a duel's
result after a move, and the card `/share` sends.
"""

from __future__ import annotations

from telegram.ext import Application

from bot.handlers.board_messages import request_redraw, send_board
from bot.handlers.buttons import after_move
from bot.handlers.context import BotContext
from bot.handlers.sharing import send_card
from bot.models import StoredGame
from bot.presentation.i18n import Translator, translator
from bot.services.games import TapResult


class ChatEcho:
    def __init__(self, application: Application) -> None:
        self._application = application

    def _context(self) -> BotContext:
        return BotContext(self._application)

    async def _post_language(self, context: BotContext, stored: StoredGame, own: str) -> Translator:
        """The language the chat's board is in: a group's chosen one, else the player's."""
        players = context.runtime.players
        group = (
            None
            if stored.chat_id == stored.owner_id
            else await players.chat_language(stored.chat_id)
        )
        return translator(group or own)

    async def redraw(self, stored: StoredGame, language: str) -> None:
        context = self._context()
        t = await self._post_language(context, stored, language)
        view = (await context.runtime.players.player(stored.owner_id)).view
        if stored.message_id is None:
            send_board(context, None, stored, t, view)
        else:
            request_redraw(context, stored, stored.message_id, t, view)

    async def moved(self, result: TapResult, language: str) -> None:
        assert result.stored is not None
        await self.redraw(result.stored, language)
        await after_move(self._context(), result)

    async def share(self, stored: StoredGame, language: str) -> bool:
        if stored.game.moves == 0:
            return False
        context = self._context()
        await send_card(context, stored, await self._post_language(context, stored, language))
        return True
