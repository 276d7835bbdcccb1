"""Challenges on Telegram: the /challenge card, joining by deep link, live and final cards.

Card edits are paced: a tap asks the group's queue for a card redraw, which coalesces with
the other players' and runs at most once per `card_interval` with the standings of that
moment, so a hundred players cost the group a handful of edits a minute. Cards and winners
go into the group's queue like every other message, in order.
"""

from __future__ import annotations

import logging
import time

from telegram import Bot, InlineKeyboardMarkup, Message, ReplyParameters, Update
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.ext import Application

from bot.handlers.announcements import send_owed, sends
from bot.handlers.board_messages import request_redraw, send_board
from bot.handlers.bookkeeping import update_key
from bot.handlers.context import Audience, BotContext, Runtime
from bot.handlers.replies import reply
from bot.models import Challenge, Obligation, ObligationKind
from bot.presentation.captions import deep_link
from bot.presentation.i18n import Translator, player_language, translator
from bot.presentation.leaderboards import (
    challenge_card,
    challenge_keyboard,
    end_time,
    winner_text,
)
from bot.presentation.names import group_name
from bot.services.challenges import (
    MAX_OPEN_PER_GROUP,
    ChallengeArgsError,
    JoinStatus,
    parse_challenge_args,
    payload,
)
from bot.transport.pacer import Job

log = logging.getLogger(__name__)
CARD_TOP = 10


async def challenge(update: Update, context: BotContext) -> None:
    audience = context.audience
    assert update.effective_chat is not None
    t = audience.for_chat
    if not audience.in_group:
        reply(
            context,
            update,
            t._("Challenges are played in groups: add me to a group and send /challenge there."),
        )
        return
    try:
        size, duration = parse_challenge_args(context.args or [])
    except ChallengeArgsError:
        reply(
            context,
            update,
            t._(
                "Start a challenge with <code>/challenge</code>, a board size (4, 5 or 6) and "
                "how long it runs, from 1 minute to 7 days. For example: <code>/challenge 5 "
                "2h</code>, <code>/challenge 6 2 hours</code> or <code>/challenge 30 min</code>. "
                "Without a size or a duration, it runs on 4×4 for 24 hours."
            ),
        )
        return
    runtime = context.runtime
    assert update.effective_message is not None
    created = await runtime.challenges.create(
        audience.chat_id,
        update.effective_chat.title or "",
        t.language,
        audience.player.user_id,
        size,
        duration,
        update_key(update),
        reply_to=update.effective_message.message_id,
    )
    if created is None:
        reply(
            context,
            update,
            t.ngettext(
                "This group already has {n} challenge running. Wait until it ends.",
                "This group already has {n} challenges running. Wait until one ends.",
                MAX_OPEN_PER_GROUP,
            ),
        )
        return
    schedule_end(context.application, created)
    # The card is owed from the commit that made the challenge: the delivery that made it
    # holds it and posts it now; a repeated delivery finds nothing of its own to post.
    await send_owed(context.bot, runtime)


@sends(ObligationKind.CARD)
async def _post_card(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    """Post a new challenge's card, as the answer to its /challenge, and remember it."""
    challenge = await runtime.storage.challenge(obligation.subject_id)
    if challenge is None or challenge.message_id is not None or challenge.finished:
        return
    t = await _card_translator(runtime, challenge)
    text, markup = await _card(bot.username, runtime, challenge, t)
    try:
        message = await bot.send_message(
            challenge.chat_id,
            text,
            reply_markup=markup,
            reply_to_message_id=obligation.reply_to,
        )
    except ChatMigrated as error:  # `follow_group` posts the card in the new chat
        await follow_group(bot, runtime, challenge.chat_id, error.new_chat_id)
        return
    except (Forbidden, BadRequest) as error:  # removed from the group, say
        # Without its card nobody can join: it must not hold one of the group's places.
        withdrawn = await runtime.challenges.withdraw(challenge)
        log.warning(
            "card of challenge %s not posted (%s)%s",
            challenge.id,
            error,
            "; withdrawn" if withdrawn else "",
        )
        return
    await _keep_card(runtime, challenge, message)


async def _keep_card(runtime: Runtime, challenge: Challenge, message: Message) -> None:
    """Make `message` the challenge's card, or delete it if another card beat it there."""
    if await runtime.challenges.set_card(challenge, message.message_id):
        return
    try:
        await message.delete()
    except TelegramError as error:
        log.warning("second card of challenge %s not deleted: %s", challenge.id, error)


async def join(update: Update, context: BotContext, audience: Audience, start_payload: str) -> None:
    """`/start <payload>` in private: enter the challenge and get its board."""
    runtime = context.runtime
    t = audience.for_chat
    result = await runtime.challenges.join(
        start_payload, audience.player.user_id, update_key(update)
    )
    if result.status is JoinStatus.INVALID:
        reply(
            context,
            update,
            t._("This challenge link doesn't work. Ask for a new one in the group."),
        )
        return
    assert result.challenge is not None
    if result.status is JoinStatus.ENDED:
        # An entrant back on an old link gets no live board: its arrows would only refuse.
        ended = t._("This challenge has ended.")
        if result.entry is not None:
            ended = t._("This challenge has ended. Your score counts as it stands.")
        reply(context, update, ended)
        return
    if result.status is JoinStatus.JOINED:
        card_language = (await _card_translator(runtime, result.challenge)).language
        reply(
            context,
            update,
            t._(
                "You've joined the challenge in {title}! Everyone gets the same tiles. "
                "It ends {time}.",
                title=group_name(t, result.challenge.chat_title, result.challenge.chat_id),
                time=end_time(t, result.challenge.ends_at, card_language),  # the group's clock
            ),
        )
    assert result.entry is not None
    send_board(context, update, result.entry, t, audience.player.view)


async def _card_translator(runtime: Runtime, challenge: Challenge) -> Translator:
    """The group's chosen language, else the language the card was first posted in."""
    language = await runtime.players.chat_language(challenge.chat_id)
    return translator(language or challenge.language)


async def _card(
    bot_username: str, runtime: Runtime, challenge: Challenge, t: Translator
) -> tuple[str, InlineKeyboardMarkup | None]:
    storage = runtime.storage
    standings = await storage.challenge_standings(challenge.id, CARD_TOP)
    players = await storage.challenge_players(challenge.id)
    text = challenge_card(t, challenge, standings, players, CARD_TOP)
    if challenge.finished:
        return text, None
    link = deep_link(bot_username, payload(challenge))
    return text, challenge_keyboard(t, link)


async def card_changed(context: BotContext, challenge_id: int) -> None:
    """A standing may have moved: one card redraw is queued, at most one per interval."""
    bot, runtime = context.bot, context.runtime
    challenge = await runtime.storage.challenge(challenge_id)
    if challenge is None or challenge.message_id is None:
        return
    message_id = challenge.message_id

    async def draw() -> None:
        current = await runtime.storage.challenge(challenge_id)
        # Not a card that has gone: a group that moved has its card posted anew already.
        if current is not None and not current.finished and current.message_id == message_id:
            try:
                await show_card(bot, runtime, current)
            except NetworkError as error:  # the next standing that moves draws it again
                log.warning("challenge card %s not updated: %s", current.id, error)

    runtime.pacer.edit(challenge.chat_id, message_id, draw, every=runtime.card_interval)


async def show_card(bot: Bot, runtime: Runtime, challenge: Challenge) -> None:
    """Bring the challenge's card up to date: edit it, or post one if it has none.

    A challenge has no card after its group moved to a new id, which a send to the old id
    may be the first to tell: then the group is moved (`follow_group`) and the card posted
    in the new chat.
    """
    t = await _card_translator(runtime, challenge)
    text, markup = await _card(bot.username, runtime, challenge, t)
    try:
        if challenge.message_id is None:
            message = await bot.send_message(challenge.chat_id, text, reply_markup=markup)
            await _keep_card(runtime, challenge, message)
        else:
            await bot.edit_message_text(
                text,
                chat_id=challenge.chat_id,
                message_id=challenge.message_id,
                reply_markup=markup,
            )
    except ChatMigrated as error:
        await follow_group(bot, runtime, challenge.chat_id, error.new_chat_id)
        moved = await runtime.storage.challenge(challenge.id)
        if moved is not None and moved.finished:  # `follow_group` posts the open ones
            await show_card(bot, runtime, moved)
    except RetryAfter:
        raise  # the group's queue shows it once the flood wait is over
    except BadRequest as error:
        if "not modified" not in error.message.lower():
            log.warning("challenge card %s not updated: %s", challenge.id, error.message)
    except NetworkError:
        raise  # the caller decides: a redraw waits for the next tap, an owed card is retried
    except TelegramError as error:  # removed from the group
        log.warning("challenge card %s not updated: %s", challenge.id, error)


async def follow_group(bot: Bot, runtime: Runtime, old: int, new: int) -> None:
    """Group `old` is now supergroup `new`: move what the bot keeps of it there, and post
    the cards of its running challenges anew (the old messages stay in the old chat), in
    the new chat's turn."""
    for challenge in await runtime.players.move_group(old, new):
        runtime.pacer.post(new, _card_job(bot, runtime, challenge.id))


def _card_job(bot: Bot, runtime: Runtime, challenge_id: int) -> Job:
    """Show the challenge's card as it stands when the job's turn comes."""

    async def show() -> None:
        current = await runtime.storage.challenge(challenge_id)
        if current is not None:
            await show_card(bot, runtime, current)

    return show


def schedule_end(application: Application, challenge: Challenge) -> None:
    """Have the challenge end on time, by one job per process however often it is asked."""
    job_queue = application.job_queue
    assert job_queue is not None
    if job_queue.get_jobs_by_name(f"end-{challenge.id}"):
        return
    delay = max(0.0, challenge.ends_at - time.time())
    job_queue.run_once(_end, delay, data=challenge.id, name=f"end-{challenge.id}")


async def schedule_open_challenges(application: Application, runtime: Runtime) -> None:
    """Every open challenge without an end job gets one (or ends right away if overdue).

    Runs at start-up, and with a shared database every minute: every process ends every open
    challenge on time, and `finish` lets exactly one of them post the final card and the
    winner, so a challenge does not wait for a restart if the process that made it is gone.
    """
    for challenge in await runtime.storage.open_challenges():
        schedule_end(application, challenge)


async def _end(context: BotContext) -> None:
    """Close the challenge once (whichever process gets there), then its final card and winner.

    Both are owed from the commit that closed it, and go into the group's queue after
    everything asked of it before, its card included; each reads the challenge when its turn
    comes, so a group that moved meanwhile is followed.
    """
    assert context.job is not None
    challenge_id: int = context.job.data  # type: ignore[assignment]
    runtime = context.runtime
    challenge = await runtime.storage.challenge(challenge_id)
    finished = None if challenge is None else await runtime.challenges.finish(challenge)
    if finished is not None:
        await send_owed(context.bot, runtime)
        await _show_ended_boards(context, finished)


@sends(ObligationKind.FINAL_CARD)
async def _show_final_card(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    challenge = await runtime.storage.challenge(obligation.subject_id)
    if challenge is not None:
        await show_card(bot, runtime, challenge)


@sends(ObligationKind.WINNER)
async def _announce_winner(bot: Bot, runtime: Runtime, obligation: Obligation) -> None:
    # Showing the card may have found the group under a new id: announce the winner there.
    challenge = await runtime.storage.challenge(obligation.subject_id)
    if challenge is None:
        return
    t = await _card_translator(runtime, challenge)
    standings = await runtime.storage.challenge_standings(challenge.id, 1)
    text = winner_text(t, challenge, standings[0] if standings else None)
    # A reply to its own card: with two challenges ending together, each says which.
    card = None
    if challenge.message_id is not None:
        card = ReplyParameters(challenge.message_id, allow_sending_without_reply=True)
    try:
        try:
            await bot.send_message(challenge.chat_id, text, reply_parameters=card)
        except ChatMigrated as error:
            await follow_group(bot, runtime, challenge.chat_id, error.new_chat_id)
            await bot.send_message(error.new_chat_id, text)
    except (Forbidden, BadRequest) as error:
        log.warning("winner of challenge %s not announced: %s", challenge.id, error)


async def _show_ended_boards(context: BotContext, challenge: Challenge) -> None:
    """Each entrant's board says that the challenge has ended, in their own chat and turn,
    so the arrows are not left to find it out one refused tap at a time."""
    runtime = context.runtime
    for entry in await runtime.storage.challenge_entries(challenge.id):
        if entry.message_id is None:
            continue
        player = await runtime.players.player(entry.owner_id)
        t = translator(player_language(player))
        request_redraw(context, entry, entry.message_id, t, player.view)
