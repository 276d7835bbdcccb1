"""What a committed move owes beyond its board: a challenge's card, a duel's result, the
daily's message in the groups of a player whose daily it ended.

Both ways of playing, the chat's arrows and the Mini App, hand the move's `MoveEffects`
(bot/services/games.py) here, so a move shows the same wherever it was made.
"""

from __future__ import annotations

from telegram import Bot

from bot.chat.announcements import send_owed
from bot.chat.cards import card_changed
from bot.chat.daily_cards import daily_finished
from bot.outcomes import MoveEffects
from bot.wiring import Runtime


async def show_effects(bot: Bot, runtime: Runtime, effects: MoveEffects) -> None:
    """The challenge's card and the daily's messages redrawn (paced, coalesced); a finished
    duel's result owed."""
    if effects.challenge_id is not None:
        await card_changed(bot, runtime, effects.challenge_id)
    if effects.daily_over is not None:
        await daily_finished(bot, runtime, effects.daily_over)
    if effects.duel_over is not None and await runtime.sharing.finish_duel(effects.duel_over):
        await send_owed(bot, runtime)
