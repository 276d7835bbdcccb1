"""A finished duel's result, told to each of its two players in their own language."""

from __future__ import annotations

import logging

from telegram import Bot
from telegram.error import BadRequest, Forbidden

from bot.models import Obligation
from bot.presentation import captions
from bot.presentation.i18n import player_language, translator
from bot.wiring import Runtime

log = logging.getLogger(__name__)


async def tell_result(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    """One of the two players gets the comparison, in their language."""
    result = await runtime.sharing.duel_result(obligation.subject_id)
    if result is None:
        return
    reader = obligation.chat_id
    friend = reader == result.entry.owner_id
    other = result.rival.owner_id if friend else result.entry.owner_id
    me, them = await runtime.players.player(reader), await runtime.players.player(other)
    t = translator(player_language(me))
    mine, theirs = result.entry.game.score, result.target.score
    if not friend:
        mine, theirs = theirs, mine
    text = captions.duel_result(t, mine, them, theirs, result.entry.game.size, sharer=not friend)
    try:
        await bot.send_message(reader, text)
    except (Forbidden, BadRequest) as error:
        log.warning("duel result not sent to %s: %s", reader, error)
