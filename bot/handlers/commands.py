"""Slash commands. Each one: find the audience, call one service, reply."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import Update
from telegram.ext import ContextTypes

import engine
from bot.handlers import challenges, groups
from bot.handlers.common import audience, send_board, services
from bot.presentation import render, texts
from bot.presentation.names import player_name

Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Awaitable[None]]


def _user_id(update: Update) -> int:
    assert update.effective_user is not None
    return update.effective_user.id


async def _reply(update: Update, text: str, **kwargs: object) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text(text, **kwargs)  # type: ignore[arg-type]


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Welcome and the current board; with a challenge deep link, the challenge board."""
    aud = await audience(context, update)
    if context.args and not aud.in_group:
        await challenges.join(update, context, aud, context.args[0])
        return
    svc = services(context)
    assert update.effective_user is not None
    user = update.effective_user
    await _reply(update, texts.welcome(aud.post, player_name(aud.post, user.first_name, user.id)))
    stored = await svc.games.current_or_start(aud.chat_id, _user_id(update))
    await send_board(context.bot, svc, stored, aud.post, aud.player.view)


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
    aud = await audience(context, update)
    svc = services(context)
    size = parse_size(context.args or [])
    if size is None:
        await _reply(
            update, aud.post._("Pick a board size:"), reply_markup=render.size_menu(aud.post)
        )
        return
    stored = await svc.games.start(aud.chat_id, _user_id(update), size)
    await send_board(context.bot, svc, stored, aud.post, aud.player.view)


async def rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await _reply(update, texts.rules((await audience(context, update)).post))


async def tips(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await _reply(update, texts.tips((await audience(context, update)).post))


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await _reply(update, texts.help_text((await audience(context, update)).post))


async def best(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Personal records in private; the group's leaderboard in a group."""
    aud = await audience(context, update)
    if aud.in_group:
        await groups.leaderboard(update, context, aud)
        return
    records = await services(context).storage.records(_user_id(update))
    await _reply(update, render.records_text(aud.post, records))


async def language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    aud = await audience(context, update)
    if aud.in_group and not await groups.is_admin(context, aud.chat_id, _user_id(update)):
        await _reply(update, aud.post._("Only the group's admins can change its language."))
        return
    await _reply(update, aud.post._("Choose your language:"), reply_markup=render.language_menu())


async def view(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Switch between the emoji grid and the numbers grid, then show the board that way."""
    aud = await audience(context, update)
    svc = services(context)
    new_view = "numbers" if aud.player.view == "emoji" else "emoji"
    await svc.storage.set_view(_user_id(update), new_view)
    t = aud.post
    notice = t._("Numbers view is on.") if new_view == "numbers" else t._("Emoji view is on.")
    await _reply(update, notice + " " + t._("/view switches back."))
    stored = await svc.games.current_or_start(aud.chat_id, _user_id(update))
    await send_board(context.bot, svc, stored, t, new_view)


async def unknown_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    t = (await audience(context, update)).post
    await _reply(update, t._("I don't know that command. /help lists what I can do."))


async def chatter(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Plain text in a private chat: point to the buttons instead of staying silent."""
    if update.effective_user is None or update.effective_message is None:
        return
    t = (await audience(context, update)).post
    await _reply(
        update,
        t._("Play with the arrow buttons under your board. /start shows it, /help lists commands."),
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
    "challenge": challenges.challenge,
}
