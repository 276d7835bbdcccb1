"""A challenge's end: on time, once whichever process gets there, then what the chats see.

Every process that knows of an open challenge has one end job for it, so a challenge ends on
time even if the process that made it is gone; `ChallengeService.finish` lets exactly one of
them close it. The final card and the winner are owed from that commit (bot/services/
outbox.py), and each entrant's board is redrawn to say the challenge has ended.
"""

from __future__ import annotations

import time
from typing import Any

from telegram.ext import Application, CallbackContext

from bot.chat.announcements import send_owed
from bot.chat.boards import redraw_board
from bot.chat.jobs import bounded
from bot.models import Challenge
from bot.presentation.i18n import player_language, translator
from bot.wiring import runtime_of

# Seconds an end job may take: a database that stops answering cuts it off, and the
# catch-up job (bot/chat/announcements.py) ends the challenge once the database is back.
END_LIMIT = 30.0


def schedule_end(application: Application, challenge: Challenge) -> None:
    """Have the challenge end on time, by one job per process however often it is asked."""
    job_queue = application.job_queue
    assert job_queue is not None
    if job_queue.get_jobs_by_name(f"end-{challenge.id}"):
        return
    delay = max(0.0, challenge.ends_at - time.time())
    job_queue.run_once(
        bounded(end_challenge, END_LIMIT), delay, data=challenge.id, name=f"end-{challenge.id}"
    )


async def schedule_open_challenges(application: Application) -> None:
    """Every open challenge without an end job gets one (or ends right away if overdue).

    Runs at start-up, and with a shared database every minute, so that a challenge does not
    wait for a restart if the process that made it is gone.
    """
    for challenge in await runtime_of(application).storage.open_challenges():
        schedule_end(application, challenge)


async def end_challenge(context: CallbackContext[Any, Any, Any, Any]) -> None:
    """Close the challenge once, then its final card, its winner and its entrants' boards.

    The card and the winner go into the group's queue after everything asked of it before,
    its card included; each reads the challenge when its turn comes, so a group that moved
    meanwhile is followed.
    """
    assert context.job is not None
    challenge_id: int = context.job.data  # type: ignore[assignment]
    application = context.application
    runtime = runtime_of(application)
    challenge = await runtime.storage.challenge(challenge_id)
    finished = None if challenge is None else await runtime.challenges.finish(challenge)
    if finished is not None:
        await send_owed(application.bot, runtime)
        await _show_ended_boards(application, finished)


async def _show_ended_boards(application: Application, challenge: Challenge) -> None:
    """Each entrant's board says that the challenge has ended, in their own chat and turn,
    so the arrows are not left to find it out one refused tap at a time."""
    runtime = runtime_of(application)
    for entry in await runtime.storage.challenge_entries(challenge.id):
        if entry.message_id is None:
            continue
        player = await runtime.players.player(entry.owner_id)
        t = translator(player_language(player))
        redraw_board(application, entry, entry.message_id, t, player.view)
