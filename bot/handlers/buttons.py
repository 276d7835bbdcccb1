"""Inline button taps. Every tap is answered, and only the board's owner changes a game."""

from __future__ import annotations

import asyncio

from telegram import CallbackQuery, MaybeInaccessibleMessage, Message, Update

from bot import codecs
from bot.chat.boards import redraw_board, retire_board, send_board
from bot.chat.effects import show_effects
from bot.chat.posts import (
    KeyboardSwap,
    Say,
    TextSwap,
    answer,
    edit_tapped,
    post_in_turn,
    update_key,
)
from bot.handlers.context import Audience, BotContext, offered
from bot.models import StoredGame
from bot.outcomes import HintResult, HintStatus, TapResult, TapStatus
from bot.presentation import render, toasts
from bot.presentation.i18n import Translator, translator
from bot.presentation.names import player_name


def _query(update: Update) -> CallbackQuery:
    assert update.callback_query is not None
    return update.callback_query


async def on_game_button(update: Update, context: BotContext) -> None:
    """Apply a tap in arrival order, queue the redraw, and answer the tap at once."""
    query = _query(update)
    tap = codecs.parse_game_tap(query.data)
    message = query.message
    if message is None:  # a board too old for Telegram to hand back
        await on_unknown_button(update, context)
        return
    if tap.action == "hint":
        # Beside this chat's updates, not in front of them: the next arrow tap is applied
        # while the search runs (and a hint for a board moved on meanwhile is dropped).
        context.application.create_task(_hint(update, context, tap.game_id), update=update)
        return
    if tap.action == "view":
        await _switch_view(update, context, tap.game_id)
        return
    runtime, audience = context.runtime, context.audience
    chat_id = message.chat.id
    result = await runtime.games.tap(
        chat_id,
        query.from_user.id,
        tap.game_id,
        tap.action,
        update_key(update),
        send=runtime.pacer.send_ask(chat_id),  # the redraw's send, reserved with the move
    )
    applied = result.stored if result.status is TapStatus.APPLIED else None
    newer = _newer_board(context, applied, message)
    if result.changed and result.stored is not None:
        board_id = newer if newer is not None else message.message_id
        redraw_board(
            context.application,
            result.stored,
            board_id,
            audience.for_chat,
            audience.player.view,
            reserved=result.send,
        )
        # Queued, then one turn of the loop before the answer: in a chat free to send, the
        # redraw's worker puts the edit on the wire first, as the edit is what the player
        # waits to see, and the answer follows at once.
        await asyncio.sleep(0)
    await _answer_tap(update, context, result, audience, moved_below=newer is not None)
    await show_effects(context.bot, runtime, result.effects)


def _newer_board(
    context: BotContext, stored: StoredGame | None, tapped: MaybeInaccessibleMessage
) -> int | None:
    """The game's newest board when the tap came from an older one, whose buttons then go.

    The tap still counts, and it is the newest board that shows it: that is the one the
    player sees last in the chat.
    """
    if stored is None or stored.message_id is None or stored.message_id == tapped.message_id:
        return None
    if isinstance(tapped, Message) and tapped.reply_markup is not None:  # not taken off yet
        retire_board(context.bot, context.runtime, stored.chat_id, tapped.message_id)
    return stored.message_id


async def _owner_name(context: BotContext, t: Translator, stored: StoredGame | None) -> str:
    assert stored is not None
    owner = await context.runtime.players.player(stored.owner_id)
    return player_name(t, owner.name, owner.user_id, html=False)


async def _hint(update: Update, context: BotContext, game_id: int) -> None:
    """Search off the event loop; moves go on meanwhile, and a hint for an old board is dropped."""
    query = _query(update)
    message = query.message
    assert message is not None
    runtime, audience = context.runtime, context.audience
    t = audience.for_sender
    if not context.hint_allowed:
        await answer(query, t._("Easy on the hints: give me a moment to think."))
        return
    result = await runtime.games.hint(
        message.chat.id, query.from_user.id, game_id, update_key(update)
    )
    if result.status is HintStatus.REFUSED:
        assert result.refused is not None
        await _answer_tap(update, context, result.refused, audience)
        return
    await answer(query, toasts.hint_toast(t, result))
    if result.status is HintStatus.SHOWN:
        _redraw_tapped(context, result, message)


def _redraw_tapped(
    context: BotContext, result: HintResult, tapped: MaybeInaccessibleMessage
) -> None:
    """The hint shown on the game's newest board (the tapped one, or the one below it)."""
    assert result.stored is not None
    audience = context.audience
    newer = _newer_board(context, result.stored, tapped)
    board_id = newer if newer is not None else tapped.message_id
    redraw_board(
        context.application, result.stored, board_id, audience.for_chat, audience.player.view
    )


async def _switch_view(update: Update, context: BotContext, game_id: int) -> None:
    """The d-pad's centre: the owner's boards in this chat switch between emoji and numbers."""
    query = _query(update)
    message = query.message
    assert message is not None
    runtime, audience = context.runtime, context.audience
    access = await runtime.games.own_game(message.chat.id, query.from_user.id, game_id)
    if access.stored is None:
        assert access.refused is not None
        await _answer_tap(update, context, access.refused, audience)
        return
    view = await runtime.players.set_view(
        audience.chat_id,
        query.from_user.id,
        audience.player.view.other,
        update_key(update),
    )
    await answer(query, render.view_notice(audience.for_sender, view))
    newer = _newer_board(context, access.stored, message)
    board_id = newer if newer is not None else message.message_id
    redraw_board(context.application, access.stored, board_id, audience.for_chat, view)


async def _answer_tap(
    update: Update,
    context: BotContext,
    result: TapResult,
    audience: Audience,
    *,
    moved_below: bool = False,
) -> None:
    """`moved_below`: the tap came from an older board of the game, so say where it went."""
    query, t = _query(update), audience.for_sender
    owner = None
    if result.status is TapStatus.NOT_YOURS:
        owner = await _owner_name(context, t, result.stored)
    held = context.runtime.pacer.held_back(audience.chat_id)
    toast = toasts.tap_answer(t, result, owner=owner, moved_below=moved_below, held_back=held)
    await answer(query, toast)
    stored, tapped = result.stored, query.message
    over = result.status is TapStatus.CHALLENGE_OVER
    if over and stored is not None and stored.daily_id is not None and tapped is not None:
        # The day is over: the board says so, and keeps only what still works.
        redraw_board(
            context.application,
            stored,
            tapped.message_id,
            audience.for_chat,
            audience.player.view,
        )
    if result.status is TapStatus.OLD_GAME:
        keyboard = KeyboardSwap(query, render.current_board_keyboard(audience.for_chat))
        edit_tapped(context.application, query, keyboard)


async def on_new_button(update: Update, context: BotContext) -> None:
    """ "New game" on a board opens the size menu; a size in that menu becomes the new board."""
    query = _query(update)
    audience, user_id = context.audience, query.from_user.id
    size = codecs.parse_new_game(query.data)
    if size is None:
        await answer(query)
        menu = render.size_menu(audience.for_chat)
        text = audience.for_chat._("Pick a board size:")
        post_in_turn(
            context.application,
            update,
            audience.chat_id,
            Say(context.bot, audience.chat_id, text, {"reply_markup": menu}),
            latest_of=("size menu", user_id),
        )
        return
    message = query.message
    assert message is not None
    runtime = context.runtime
    stored = await runtime.games.start(
        audience.chat_id, user_id, size, update_key(update), keep_unplayed=True
    )
    await answer(query)
    t, view = audience.for_chat, audience.player.view
    if audience.in_group:  # the menu is shared: leave it for others, post the board anew
        send_board(context.application, update, stored, t, view, latest_of=("board", user_id))
    else:
        redraw_board(context.application, stored, message.message_id, t, view)


async def on_language_button(update: Update, context: BotContext) -> None:
    """In private the player's language; in a group the group's, for its admins only."""
    query = _query(update)
    if not offered(query):  # a language tap forged onto a board must not overwrite it
        await on_unknown_button(update, context)
        return
    code = codecs.parse_language(query.data)
    audience = context.audience
    players = context.runtime.players
    t = translator(code)
    if audience.in_group:
        if not await context.is_admin(audience.chat_id, query.from_user.id):
            await answer(
                query, audience.for_sender._("Only the group's admins can change its language.")
            )
            return
        await players.set_chat_language(audience.chat_id, code)
        confirmation = t._("From now on I'll post in English in this group.")
    else:
        await players.set_language(audience.chat_id, query.from_user.id, code)
        confirmation = t._("I'll speak English with you from now on.")
    await answer(query, confirmation)
    edit_tapped(context.application, query, TextSwap(query, confirmation))


async def on_current_button(update: Update, context: BotContext) -> None:
    query = _query(update)
    audience = context.audience
    runtime = context.runtime
    await answer(query)
    user_id = query.from_user.id
    stored = await runtime.games.current_or_start(audience.chat_id, user_id)
    send_board(
        context.application,
        update,
        stored,
        audience.for_chat,
        audience.player.view,
        latest_of=("board", user_id),
    )


async def on_unknown_button(update: Update, context: BotContext) -> None:
    """Forged, garbled or long-retired button data: say so, touch nothing."""
    query = _query(update)
    t = await context.sender_translator(query.from_user)
    await answer(query, t._("This button doesn't work any more. /start shows your game."))
