"""Messages and taps beyond a sender's or a group's budget are dropped before any handler runs.

Every command costs a reply, and a group takes only about 20 messages a minute: a member
sending /help three hundred times would otherwise queue replies for a quarter of an hour.
Inline queries (one per keystroke) have a throttle per user too. Taps of every kind have
their own, more generous throttle per user: most cost no message in the chat, and those that
post one (a size menu, a board) post at most one of each per player at a time
(bot/transport/pacer.py). Either way a script's flood is refused before it costs a database
write. A player's taps are one budget for all the bot's processes: with a shared database
it is kept in the player's row, and spent by the read their tap makes anyway. Their
messages and their group's are one budget too, spent by the read of the sender their
bookkeeping makes anyway; their hints by the statement that spends the 💡's tap, their
inline queries by one statement (`Throttle.spend`). A sender so far ahead that their
updates no longer wait in their chat's order (bot/transport/updates.py) is refused at once
by `OverflowRefusal`.
"""

from __future__ import annotations

import asyncio
import logging

from cachetools import TTLCache
from telegram import Update
from telegram.ext import ApplicationHandlerStop

from bot.chat.posts import answer
from bot.handlers.context import GROUP_TYPES, BotContext, asks_hint, tapped_game
from bot.models import Player
from bot.presentation import toasts
from bot.presentation.i18n import player_language, resolve_language, translator
from bot.transport.throttle import MAX_TRACKED_USERS, spend_here
from bot.wiring import Runtime

log = logging.getLogger(__name__)
# Seconds a flood's refusals keep the sender's language once read.
LANGUAGE_SECONDS = 10.0


async def drop_excess(update: Update, context: BotContext) -> None:
    if update.callback_query is not None:
        await _drop_excess_taps(update, context)
    elif update.inline_query is not None:
        await _drop_excess_inline_queries(update, context)
    else:
        await _drop_excess_messages(update, context)


async def _drop_excess_inline_queries(update: Update, context: BotContext) -> None:
    """Unanswered: the client shows the answer to the query the typist stops at."""
    query = update.inline_query
    assert query is not None
    if await context.runtime.inline_throttle.spend(query.from_user.id):
        return
    log.debug("inline query %s from %s dropped: over its budget", query.id, query.from_user.id)
    raise ApplicationHandlerStop


async def _drop_excess_taps(update: Update, context: BotContext) -> None:
    """This process's bucket first, so a flood through it costs no statement; then the
    budget every process shares, whose spending reads the player the tap needs anyway. A 💡
    spends the hints' throttle in the same statement (`BotContext.hint_allowed`)."""
    query = update.callback_query
    assert query is not None
    runtime = context.runtime
    user, chat = query.from_user, update.effective_chat
    if runtime.throttle.allow(user.id):
        hint = spend_here((runtime.hint_throttle, user.id)) if asks_hint(update) else None
        context.tapper = await runtime.players.spend_tap(
            user.id if chat is None else chat.id,
            user.id,
            in_group=chat is not None and chat.type in GROUP_TYPES,
            game_id=tapped_game(update),
            also=hint or (),
        )
        if context.tapper is not None:
            context.hint_allowed = hint is not None and context.tapper.throttled_in
            return
    t = await context.sender_translator(query.from_user)
    await answer(query, toasts.too_fast(t))
    raise ApplicationHandlerStop


class OverflowRefusal:
    """Refuses an update beyond its sender's wait: a tap is answered as one over budget, the
    rest dropped unanswered, as over-budget messages are.

    It runs for every tap of a flood at once, so the sender's language is read once per
    `LANGUAGE_SECONDS` however many of their taps ask for it together.
    """

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._players: TTLCache[int, asyncio.Future[Player]] = TTLCache(
            MAX_TRACKED_USERS, ttl=LANGUAGE_SECONDS
        )

    async def __call__(self, update: object) -> None:
        if not isinstance(update, Update) or update.callback_query is None:
            return
        query = update.callback_query
        user = query.from_user
        reading = self._players.get(user.id)
        if reading is None:
            reading = asyncio.ensure_future(self._runtime.players.player(user.id))
            self._players[user.id] = reading
        try:
            choice = player_language(await asyncio.shield(reading), user.language_code)
        except Exception:  # the database away: Telegram's language will do for a refusal
            choice = resolve_language(None, user.language_code)
        t = translator(choice)
        await answer(query, toasts.too_fast(t))


async def _drop_excess_messages(update: Update, context: BotContext) -> None:
    message, user, chat = update.message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return  # taps, edits and service updates have their own rules
    if message.migrate_to_chat_id is not None or message.migrate_from_chat_id is not None:
        return  # a group's upgrade notice costs no reply, and the bot must follow the group
    runtime = context.runtime
    in_group = chat.type in GROUP_TYPES
    asks = [(runtime.message_throttle, user.id)]
    if in_group:
        asks.append((runtime.group_message_throttle, chat.id))
    buckets = spend_here(*asks)
    if buckets == []:
        return
    if buckets is not None:
        # Spent by the read of the sender its bookkeeping makes anyway.
        context.tapper = await runtime.players.spend_message(
            chat.id, user.id, buckets, in_group=in_group
        )
        if context.tapper is not None:
            return
    log.debug("message %s in chat %s dropped: over its budget", message.message_id, chat.id)
    raise ApplicationHandlerStop
