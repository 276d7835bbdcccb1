"""Challenges on Telegram: the /challenge card, joining by deep link, live and final cards.

Card edits are paced: a tap only marks the card for a refresh, and one job per card redraws
it at most once per `card_interval` with the standings of that moment, so a hundred players
cost the group a handful of edits a minute.
"""

from __future__ import annotations

import logging
import time

from telegram import InlineKeyboardMarkup, Update
from telegram.error import BadRequest, TelegramError
from telegram.ext import Application, ContextTypes

from bot.handlers.common import Audience, audience, send_board, services
from bot.models import Challenge
from bot.presentation.i18n import Translator, translator
from bot.presentation.leaderboards import (
    challenge_card,
    challenge_keyboard,
    end_time,
    winner_text,
)
from bot.presentation.names import group_name
from bot.services import challenges as domain

log = logging.getLogger(__name__)
CARD_TOP = 10


async def challenge(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    aud = await audience(context, update)
    assert update.effective_message is not None and update.effective_chat is not None
    t = aud.post
    if not aud.in_group:
        await update.effective_message.reply_text(
            t._("Challenges are played in groups: add me to a group and send /challenge there.")
        )
        return
    try:
        size, duration = domain.parse_challenge_args(context.args or [])
    except domain.ChallengeArgsError:
        await update.effective_message.reply_text(
            t._(
                "Use /challenge [4|5|6] [duration], for example /challenge 5 2h. "
                "Durations run from 1m to 7d."
            )
        )
        return
    svc = services(context)
    created = await svc.challenges.create(
        aud.chat_id,
        update.effective_chat.title or "",
        t.language,
        aud.player.user_id,
        size,
        duration,
    )
    if created is None:
        await update.effective_message.reply_text(
            t.ngettext(
                "This group already has {n} challenge running. Wait until it ends.",
                "This group already has {n} challenges running. Wait until one ends.",
                domain.MAX_OPEN_PER_GROUP,
            )
        )
        return
    text, markup = await _card(context, created, t)
    message = await update.effective_message.reply_text(text, reply_markup=markup)
    await svc.storage.set_challenge_message(created.id, message.message_id)
    schedule_end(context.application, created)


async def join(
    update: Update, context: ContextTypes.DEFAULT_TYPE, aud: Audience, start_payload: str
) -> None:
    """`/start <payload>` in private: enter the challenge and get its board."""
    assert update.effective_message is not None
    svc = services(context)
    t = aud.post
    result = await svc.challenges.join(start_payload, aud.player.user_id)
    if result.status is domain.JoinStatus.INVALID:
        await update.effective_message.reply_text(
            t._("This challenge link doesn't work. Ask for a new one in the group.")
        )
        return
    assert result.challenge is not None
    if result.status is domain.JoinStatus.ENDED:
        await update.effective_message.reply_text(t._("This challenge has ended."))
        return
    if result.status is domain.JoinStatus.JOINED:
        await update.effective_message.reply_text(
            t._(
                "You're in the challenge from {title}! Everyone gets the same tiles. "
                "It ends {time}.",
                title=group_name(t, result.challenge.chat_title, result.challenge.chat_id),
                time=end_time(t, result.challenge.ends_at),
            )
        )
    assert result.entry is not None
    await send_board(context.bot, svc, result.entry, t, aud.player.view)


async def _card_translator(context: ContextTypes.DEFAULT_TYPE, challenge: Challenge) -> Translator:
    """The group's chosen language, else the language the card was first posted in."""
    language = await services(context).storage.chat_language(challenge.chat_id)
    return translator(language or challenge.language)


async def _card(
    context: ContextTypes.DEFAULT_TYPE, challenge: Challenge, t: Translator
) -> tuple[str, InlineKeyboardMarkup | None]:
    storage = services(context).storage
    standings = await storage.challenge_standings(challenge.id, CARD_TOP)
    players = await storage.challenge_players(challenge.id)
    text = challenge_card(t, challenge, standings, players, CARD_TOP)
    if challenge.finished:
        return text, None
    link = f"https://t.me/{context.bot.username}?start={domain.payload(challenge)}"
    return text, challenge_keyboard(t, link)


def card_changed(context: ContextTypes.DEFAULT_TYPE, challenge_id: int) -> None:
    """A standing may have moved: make sure one card refresh is on its way, not one per tap."""
    job_queue = context.job_queue
    assert job_queue is not None
    name = f"card-{challenge_id}"
    if job_queue.get_jobs_by_name(name):
        return
    svc = services(context)
    edited_at = context.bot_data.setdefault("card_edited_at", {})
    now = time.monotonic()
    delay = max(0.0, edited_at.get(challenge_id, 0.0) + svc.card_interval - now)
    # Book the edit's time now: once the job starts it is no longer listed, and a tap
    # landing before its first line runs would otherwise schedule a second edit at once.
    edited_at[challenge_id] = now + delay
    job_queue.run_once(_refresh_card, delay, data=challenge_id, name=name)


async def _refresh_card(context: ContextTypes.DEFAULT_TYPE) -> None:
    assert context.job is not None
    challenge_id: int = context.job.data  # type: ignore[assignment]
    current = await services(context).storage.challenge(challenge_id)
    if current is None or current.finished or current.message_id is None:
        return
    await _edit_card(context, current)


async def _edit_card(context: ContextTypes.DEFAULT_TYPE, challenge: Challenge) -> None:
    t = await _card_translator(context, challenge)
    text, markup = await _card(context, challenge, t)
    try:
        await context.bot.edit_message_text(
            text,
            chat_id=challenge.chat_id,
            message_id=challenge.message_id,
            reply_markup=markup,
        )
    except BadRequest as error:
        if "not modified" not in error.message.lower():
            log.warning("challenge card %s not updated: %s", challenge.id, error.message)
    except TelegramError as error:  # removed from the group, network trouble, flood limit
        log.warning("challenge card %s not updated: %s", challenge.id, error)


def schedule_end(application: Application, challenge: Challenge) -> None:
    job_queue = application.job_queue
    assert job_queue is not None
    delay = max(0.0, challenge.ends_at - time.time())
    job_queue.run_once(_end, delay, data=challenge.id, name=f"end-{challenge.id}")


async def reschedule_open_challenges(application: Application) -> None:
    """At start-up: every challenge still open gets its end job again (or ends right away)."""
    storage = application.bot_data["services"].storage
    for open_challenge in await storage.open_challenges():
        schedule_end(application, open_challenge)


async def _end(context: ContextTypes.DEFAULT_TYPE) -> None:
    assert context.job is not None and context.job_queue is not None
    challenge_id: int = context.job.data  # type: ignore[assignment]
    for job in context.job_queue.get_jobs_by_name(f"card-{challenge_id}"):
        job.schedule_removal()
    finished = await services(context).challenges.finish(challenge_id)
    if finished is None:
        return
    t = await _card_translator(context, finished)
    if finished.message_id is not None:
        await _edit_card(context, finished)
    standings = await services(context).storage.challenge_standings(finished.id, 1)
    try:
        await context.bot.send_message(
            finished.chat_id, winner_text(t, finished, standings[0] if standings else None)
        )
    except TelegramError as error:
        log.warning("winner of challenge %s not announced: %s", finished.id, error)
