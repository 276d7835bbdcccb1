"""Inline button taps. Every tap is answered, and only the board's owner changes a game."""

from __future__ import annotations

from telegram import CallbackQuery, Update
from telegram.ext import ContextTypes

import engine
from bot import callbacks, render
from bot.games import TapResult, TapStatus
from bot.handlers.common import edit_board, reader, send_board, services
from bot.i18n import Translator, translator


def _query(update: Update) -> CallbackQuery:
    assert update.callback_query is not None
    return update.callback_query


def _refusal(t: Translator, outcome: engine.Outcome | None) -> str | None:
    """The toast for a tap the engine did not apply, or for a notable move."""
    toasts = {
        engine.Outcome.NOTHING_MOVES: t._("Nothing moves that way."),
        engine.Outcome.AWAITING_CHOICE: t._("You made 2048! Choose Keep going or New game."),
        engine.Outcome.NO_UNDOS_LEFT: t._("No undos left in this game."),
        engine.Outcome.NOTHING_TO_UNDO: t._("There is no move to undo."),
        engine.Outcome.NOT_WON: t._("This game is already going on."),
        engine.Outcome.WON: t._("🎉 2048!"),
        engine.Outcome.GAME_OVER: t._("Game over."),
    }
    return toasts.get(outcome) if outcome is not None else None


async def on_game_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = _query(update)
    tap = callbacks.parse_game_tap(query.data)
    message = query.message
    if tap is None or message is None:
        await on_unknown_button(update, context)
        return
    player, t = await reader(context, update)
    svc = services(context)
    async with svc.games.chat_lock(message.chat.id):
        result = await svc.games.tap(message.chat.id, query.from_user.id, tap.game_id, tap.action)
        await _answer_tap(update, context, result, t)
        if result.changed and result.stored is not None:
            await edit_board(context.bot, svc, result.stored, message.message_id, t, player.view)


async def _answer_tap(
    update: Update, context: ContextTypes.DEFAULT_TYPE, result: TapResult, t: Translator
) -> None:
    query = _query(update)
    if result.status is TapStatus.APPLIED:
        await query.answer(_refusal(t, result.outcome))
    elif result.status is TapStatus.NOT_YOURS:
        assert result.stored is not None
        owner = await services(context).storage.player(result.stored.owner_id)
        await query.answer(
            t._("This is {name}'s game. /new starts your own.", name=owner.name), show_alert=True
        )
    elif result.status is TapStatus.OLD_GAME:
        await query.answer(t._("This board is from a game that has ended."))
        await query.edit_message_reply_markup(render.current_board_keyboard(t))
    else:
        await query.answer(t._("This board is no longer available. /start shows your game."))


async def on_new_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """ "New game" on a board opens the size menu; a size in that menu becomes the new board."""
    query = _query(update)
    player, t = await reader(context, update)
    size = callbacks.parse_new_game(query.data)
    message = query.message
    assert message is not None
    if size is None:
        await query.answer()
        await context.bot.send_message(
            message.chat.id, t._("Pick a board size:"), reply_markup=render.size_menu(t)
        )
        return
    svc = services(context)
    async with svc.games.chat_lock(message.chat.id):
        stored = await svc.games.start(message.chat.id, query.from_user.id, size)
        await query.answer()
        await edit_board(context.bot, svc, stored, message.message_id, t, player.view)


async def on_language_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = _query(update)
    code = callbacks.parse_language(query.data)
    await services(context).storage.set_language(query.from_user.id, code)
    t = translator(code)
    await query.answer(t._("I'll speak English with you from now on."))
    await query.edit_message_text(t._("I'll speak English with you from now on."))


async def on_current_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = _query(update)
    player, t = await reader(context, update)
    svc = services(context)
    message = query.message
    assert message is not None
    await query.answer()
    stored = await svc.games.current_or_start(message.chat.id, query.from_user.id)
    await send_board(context.bot, svc, stored, t, player.view)


async def on_unknown_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Forged, garbled or long-retired button data: say so, touch nothing."""
    query = _query(update)
    _, t = await reader(context, update)
    await query.answer(t._("This button doesn't work any more. /start shows your game."))
