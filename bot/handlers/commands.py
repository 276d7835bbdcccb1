"""Slash commands. Each one: find the reader, call one service, reply."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from html import escape

from telegram import Update
from telegram.ext import ContextTypes

import engine
from bot import render, texts
from bot.handlers.common import reader, send_board, services

Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Awaitable[None]]


def _chat_and_user(update: Update) -> tuple[int, int]:
    assert update.effective_chat is not None and update.effective_user is not None
    return update.effective_chat.id, update.effective_user.id


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    player, t = await reader(context, update)
    svc = services(context)
    chat_id, user_id = _chat_and_user(update)
    assert update.effective_message is not None and update.effective_user is not None
    await update.effective_message.reply_text(
        texts.welcome(t, escape(update.effective_user.first_name))
    )
    stored = await svc.games.current_or_start(chat_id, user_id)
    await send_board(context.bot, svc, stored, t, player.view)


def parse_size(args: list[str]) -> int | None:
    """`/new 5`, `/new 5x5` and `/new 5×5` all mean the 5×5 board."""
    if len(args) != 1:
        return None
    word = args[0].lower().replace("×", "x")
    head, _, tail = word.partition("x")
    if not head.isdigit() or (tail and tail != head):
        return None
    size = int(head)
    return size if size in engine.SIZES else None


async def new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    player, t = await reader(context, update)
    svc = services(context)
    chat_id, user_id = _chat_and_user(update)
    assert update.effective_message is not None
    size = parse_size(context.args or [])
    if size is None:
        await update.effective_message.reply_text(
            t._("Pick a board size:"), reply_markup=render.size_menu(t)
        )
        return
    stored = await svc.games.start(chat_id, user_id, size)
    await send_board(context.bot, svc, stored, t, player.view)


async def rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    _, t = await reader(context, update)
    assert update.effective_message is not None
    await update.effective_message.reply_text(texts.rules(t))


async def tips(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    _, t = await reader(context, update)
    assert update.effective_message is not None
    await update.effective_message.reply_text(texts.tips(t))


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    _, t = await reader(context, update)
    assert update.effective_message is not None
    await update.effective_message.reply_text(texts.help_text(t))


async def best(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    _, t = await reader(context, update)
    assert update.effective_message is not None and update.effective_user is not None
    records = await services(context).storage.records(update.effective_user.id)
    await update.effective_message.reply_text(render.records_text(t, records))


async def language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    _, t = await reader(context, update)
    assert update.effective_message is not None
    await update.effective_message.reply_text(
        t._("Choose your language:"), reply_markup=render.language_menu()
    )


async def view(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Switch between the emoji grid and the numbers grid, then show the board that way."""
    player, t = await reader(context, update)
    svc = services(context)
    chat_id, user_id = _chat_and_user(update)
    assert update.effective_message is not None
    new_view = "numbers" if player.view == "emoji" else "emoji"
    await svc.storage.set_view(user_id, new_view)
    notice = t._("Numbers view is on.") if new_view == "numbers" else t._("Emoji view is on.")
    await update.effective_message.reply_text(notice + " " + t._("/view switches back."))
    stored = await svc.games.current_or_start(chat_id, user_id)
    await send_board(context.bot, svc, stored, t, new_view)


async def unknown_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    _, t = await reader(context, update)
    assert update.effective_message is not None
    await update.effective_message.reply_text(
        t._("I don't know that command. /help lists what I can do.")
    )


async def chatter(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Plain text in a private chat: point to the buttons instead of staying silent."""
    if update.effective_user is None or update.effective_message is None:
        return
    _, t = await reader(context, update)
    await update.effective_message.reply_text(
        t._("Play with the arrow buttons under your board. /start shows it, /help lists commands.")
    )


COMMANDS: dict[str, Handler] = {
    "start": start,
    "new": new,
    "rules": rules,
    "tips": tips,
    "best": best,
    "help": help_command,
    "language": language,
    "view": view,
}
