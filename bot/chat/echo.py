"""What the chat shows of the Mini App's game: its board message catches up, 📤 sends the card.

The Mini App's API (bot/web/miniapp/) knows nothing of Telegram; the bot hands it this
`ChatEcho`, which does what a tap would have done for the chat: a paced, coalesced redraw of
the game's board message (a new board when it has none), the move's effects, and the card
`/share` sends. Each post replaces the same player's post of its kind still waiting, as the
chat's buttons do (bot/handlers/buttons.py): however fast a script calls the API, a chat
holds at most one board and one card of each player waiting to go out.
"""

from __future__ import annotations

from telegram.ext import Application

from bot.chat.boards import redraw_board, send_board
from bot.chat.effects import show_effects
from bot.chat.pictures import post_card
from bot.models import StoredGame
from bot.outcomes import TapResult
from bot.presentation.i18n import Translator, translator
from bot.wiring import runtime_of


class ChatEcho:
    def __init__(self, application: Application) -> None:
        self._application = application

    async def _chat_language(self, stored: StoredGame, own: str) -> Translator:
        """The language the chat's board is in: a group's chosen one, else the player's."""
        players = runtime_of(self._application).players
        group = (
            None
            if stored.chat_id == stored.owner_id
            else await players.chat_language(stored.chat_id)
        )
        return translator(group or own)

    async def redraw(self, stored: StoredGame, language: str) -> None:
        runtime = runtime_of(self._application)
        t = await self._chat_language(stored, language)
        view = (await runtime.players.player(stored.owner_id)).view
        if stored.message_id is None:
            board = ("board", stored.owner_id)  # the key the chat's buttons post boards under
            send_board(self._application, None, stored, t, view, latest_of=board)
        else:
            redraw_board(self._application, stored, stored.message_id, t, view)

    async def moved(self, result: TapResult, language: str) -> None:
        assert result.stored is not None
        await self.redraw(result.stored, language)
        runtime = runtime_of(self._application)
        await show_effects(self._application.bot, runtime, result.effects)

    async def share(self, stored: StoredGame, language: str) -> bool:
        if stored.game.moves == 0:
            return False
        t = await self._chat_language(stored, language)
        card = ("card", stored.owner_id)
        await post_card(self._application, None, stored.chat_id, stored, t, latest_of=card)
        return True
