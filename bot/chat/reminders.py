"""The daily's reminder, sent from the outbox (bot/chat/announcements.py) in the player's turn.

A player who blocked the bot will never get one: the 403 switches their reminder off, said in
one line, and the obligation is settled rather than tried again tomorrow and every day after.
"""

from __future__ import annotations

import logging

from telegram import Bot
from telegram.error import BadRequest, Forbidden

from bot.models import Obligation
from bot.presentation import reminders as texts
from bot.presentation.i18n import player_language, translator
from bot.wiring import Runtime

log = logging.getLogger(__name__)


async def remind(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    """Today's reminder to one player, in their language, unless it is no longer due."""
    service = runtime.reminders
    day = await service.due_day(obligation)
    if day is None:
        return
    user_id = obligation.chat_id
    t = translator(player_language(await runtime.players.player(user_id)))
    try:
        await bot.send_message(
            user_id, texts.reminder(t, day), reply_markup=texts.reminder_keyboard(t)
        )
    except Forbidden as error:
        await service.switch_off(user_id)
        log.info("daily reminder to %s not sent, reminders switched off: %s", user_id, error)
    except BadRequest as error:
        log.warning("daily reminder to %s not sent: %s", user_id, error)
