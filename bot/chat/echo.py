"""What the chat shows of the Mini App's game: its board message catches up, 📤 sends the card.

The Mini App's API (bot/web/miniapp/) knows nothing of Telegram; the bot hands it this
`ChatEcho`, which does what a tap would have done for the chat: a paced, coalesced redraw of
the game's board message (a new board when it has none), the move's effects, and the card
`/share` sends, or, for a client that can share it to any chat itself (shareMessage), the
card as a prepared inline message. Each post replaces the same player's post of its kind
still waiting, as the chat's buttons do (bot/handlers/buttons.py): however fast a script
calls the API, a chat holds at most one board and one card of each player waiting to go out.
"""

from __future__ import annotations

from telegram import InlineQueryResultCachedPhoto
from telegram.ext import Application

from bot.chat.boards import redraw_board, send_board
from bot.chat.effects import show_effects
from bot.chat.pictures import card_message, duel_link, post_card, refusal, uploaded_card
from bot.models import StoredGame
from bot.outcomes import TapResult
from bot.presentation import captions
from bot.presentation.i18n import Translator, translator
from bot.services.workers import Busy, Crowded
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

    async def prepare(self, stored: StoredGame, language: str) -> tuple[str | None, str]:
        """The game's card as a message its player may send to any chat: the prepared
        message's id, or None and the sentence saying why not (no move yet, a running
        challenge's secret tiles, pictures being drawn)."""
        t = translator(language)
        runtime = runtime_of(self._application)
        if stored.game.moves == 0:
            return None, captions.nothing_to_show(t, started=True)
        if await runtime.sharing.in_running_challenge(stored):
            return None, captions.challenge_running(t)
        bot = self._application.bot
        try:
            photo = await uploaded_card(bot, runtime, stored.owner_id, stored, t, fresh=False)
        except (Busy, Crowded) as error:
            return None, refusal(t, error)
        caption, _ = await card_message(bot, runtime, stored, t)
        result = InlineQueryResultCachedPhoto(
            f"card-{stored.id}-{stored.game.moves}",
            photo,
            caption=caption,
            reply_markup=captions.card_keyboard(t, duel_link(bot, stored), shared=None),
        )
        prepared = await bot.save_prepared_inline_message(
            stored.owner_id,
            result,
            allow_user_chats=True,
            allow_group_chats=True,
            allow_channel_chats=True,
        )
        return prepared.id, ""
