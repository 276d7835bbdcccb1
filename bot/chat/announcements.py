"""Sending what the outbox says is owed (bot/services/outbox.py), each in its chat's turn.

`SENDERS` says how each kind of announcement is sent; `send_owed` queues every obligation
this process is to send, each in its slot of the bot's one broadcast budget. It runs right
after a service has committed one (the handler or job that owes it calls it), at start-up,
and every `outbox_interval` seconds, so what a restart, an outage or a dead process left owed
goes out within seconds of the database being back.

A sender lets a failure that may pass (the network, the database, Telegram's flood wait)
reach the queued job, which leaves the obligation owed to be tried again; one that never
will (the bot was removed from the group) it logs, and the obligation is settled.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import Bot
from telegram.error import NetworkError, RetryAfter

from bot.chat import cards, daily_cards, duels, reminders
from bot.models import Obligation, ObligationKind
from bot.storage import StorageUnavailable
from bot.transport.broadcasts import AHEAD, broadcasting
from bot.wiring import Runtime

log = logging.getLogger(__name__)
Sender = Callable[[Bot, Runtime, Obligation], Awaitable[None]]
SENDERS: dict[ObligationKind, Sender] = {
    ObligationKind.CARD: cards.post_challenge_card,
    ObligationKind.FINAL_CARD: cards.show_final_card,
    ObligationKind.WINNER: cards.announce_winner,
    ObligationKind.DUEL_RESULT: duels.tell_result,
    ObligationKind.DAILY_CARD: daily_cards.post_daily_card,
    ObligationKind.DAILY_FINAL_CARD: daily_cards.show_final_daily_card,
    ObligationKind.DAILY_WINNER: daily_cards.announce_daily_winner,
    ObligationKind.DAILY_REMINDER: reminders.remind,
}


@dataclass(frozen=True, slots=True)
class OwedAnnouncement:
    """One obligation, sent when its chat's turn comes if this process still holds it."""

    bot: Bot
    runtime: Runtime
    obligation: Obligation

    async def __call__(self) -> None:
        obligation, outbox = self.obligation, self.runtime.outbox
        try:
            # Held again when its turn comes: another process may have taken over meanwhile.
            if await outbox.hold(obligation):
                # A reply goes at once; a broadcast's requests each wait for their slot.
                reply = obligation.reply_to is not None
                with contextlib.nullcontext() if reply else broadcasting():
                    await SENDERS[obligation.kind](self.bot, self.runtime, obligation)
                await outbox.settle(obligation)
        except RetryAfter:
            raise  # still queued here: sent once the flood wait is over
        except (NetworkError, StorageUnavailable) as error:
            log.warning(
                "%s %s for chat %s not sent yet, tried again soon: %s",
                obligation.kind,
                obligation.subject_id,
                obligation.chat_id,
                error,
            )
        outbox.give_back(obligation)


async def send_owed(bot: Bot, runtime: Runtime) -> None:
    """Queue, each in its chat's turn after what is queued there and no sooner than its slot
    in the bot-wide broadcast budget (bot/transport/broadcasts.py), what is owed from here.

    Slots are reserved up to `AHEAD` seconds from now: what is held beyond is given back, and
    stays owed for the next look, so a midnight's thousands go out over minutes, none lost.
    An announcement that answers a message (a /challenge's card) is a reply, not a
    broadcast: it comes first (`Storage.owed`) and goes in its chat's turn alone, so a
    command at midnight is answered at once, not after the night's backlog.
    """
    taken = await runtime.outbox.take_due()
    queued = 0
    try:
        for obligation in taken:
            reply = obligation.reply_to is not None
            wait = 0.0 if reply else await runtime.broadcasts.reserve()
            job = OwedAnnouncement(bot, runtime, obligation)
            runtime.pacer.post(obligation.chat_id, job, after=wait)
            queued += 1
            if wait > AHEAD:
                break
    finally:  # cut short too: what was not queued is handed out again by the next look
        for later in taken[queued:]:
            runtime.outbox.give_back(later)


async def catch_up(bot: Bot, runtime: Runtime) -> None:
    """End the challenges whose time is up, close and open the groups' dailies as the days
    turn, then send what is owed.

    The days turn first (no statement but at midnight), then one look, which also renews
    this process's leases: when nothing is due, as on most turns, that is the whole run.
    During an outage this finds the database away, which its storage has logged already.
    """
    try:
        await runtime.group_daily.turn_days()
        if not await runtime.outbox.look():
            return
        await runtime.challenges.finish_overdue()
        await send_owed(bot, runtime)
    except StorageUnavailable:
        return


async def remind_daily(bot: Bot, runtime: Runtime) -> None:
    """Owe this turn's batch of the day's reminders (bot/services/reminders.py), then send
    what is owed. During an outage this finds the database away, as `catch_up` does."""
    try:
        if await runtime.reminders.owe_due():
            await send_owed(bot, runtime)
    except StorageUnavailable:
        return
