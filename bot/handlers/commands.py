"""Slash commands. Each one: find the audience, call one service, reply."""

from __future__ import annotations

from telegram import Update

import engine
from bot.chat.boards import send_board
from bot.chat.cards import group_clock
from bot.chat.posts import reply, update_key
from bot.codecs import parse_size
from bot.handlers.context import Audience, BotContext
from bot.presentation import render, texts
from bot.presentation.leaderboards import group_leaderboard
from bot.presentation.menus import menu
from bot.presentation.names import player_name

TOP = 10
CHALLENGE_TOP = 3  # a running challenge's leaders in /best; its card shows more
PAST_CHALLENGES = 3  # finished challenges whose winners /best recalls


def _user_id(update: Update) -> int:
    assert update.effective_user is not None
    return update.effective_user.id


async def start(update: Update, context: BotContext) -> None:
    """Welcome and the current board (a deep link's payload goes elsewhere: see register).

    Players send /start again to bring their board back: one with a game running here gets
    a short greeting, not the newcomer's introduction once more.
    """
    audience = context.audience
    runtime = context.runtime
    assert update.effective_user is not None
    user = update.effective_user
    t = audience.for_chat
    name = player_name(t, user.first_name, user.id)
    running = await runtime.games.current(audience.chat_id, user.id)
    welcome = texts.welcome(t, name) if running is None else texts.welcome_back(t, name)
    reply(context.application, update, welcome, reply_markup=render.daily_keyboard(t))
    stored = running or await runtime.games.current_or_start(audience.chat_id, user.id)
    send_board(context.application, update, stored, t, audience.player.view)


async def new(update: Update, context: BotContext) -> None:
    audience = context.audience
    runtime = context.runtime
    args = context.args or []
    size = parse_size(args[0]) if len(args) == 1 else None
    if size is None:
        reply(
            context.application,
            update,
            audience.for_chat._("Pick a board size:"),
            reply_markup=render.size_menu(audience.for_chat),
        )
        return
    stored = await runtime.games.start(audience.chat_id, _user_id(update), size, update_key(update))
    send_board(context.application, update, stored, audience.for_chat, audience.player.view)


async def rules(update: Update, context: BotContext) -> None:
    reply(context.application, update, texts.rules(context.audience.for_chat))


async def tips(update: Update, context: BotContext) -> None:
    reply(context.application, update, texts.tips(context.audience.for_chat))


async def help_command(update: Update, context: BotContext) -> None:
    audience = context.audience
    reply(
        context.application,
        update,
        texts.help_text(audience.for_chat, menu(audience.for_chat, in_group=audience.in_group)),
    )


async def best(update: Update, context: BotContext) -> None:
    """Personal records in private; the group's leaderboard in a group."""
    audience = context.audience
    if audience.in_group:
        await _leaderboard(update, context, audience)
        return
    records = await context.runtime.storage.records(_user_id(update))
    reply(context.application, update, render.records_text(audience.for_chat, records))


async def _leaderboard(update: Update, context: BotContext, audience: Audience) -> None:
    """The group's best games per board size, then its challenges: running and past."""
    assert update.effective_chat is not None
    storage = context.runtime.storage
    user_id = audience.player.user_id
    boards = {
        size: await storage.group_leaderboard(audience.chat_id, size, TOP, asker=user_id)
        for size in engine.SIZES
    }
    running = [
        (challenge, await storage.challenge_standings(challenge.id, CHALLENGE_TOP))
        for challenge in await storage.open_challenges(audience.chat_id)
    ]
    finished = []
    for challenge in await storage.finished_challenges(audience.chat_id, PAST_CHALLENGES):
        winner = await storage.challenge_standings(challenge.id, 1)
        finished.append((challenge, winner[0] if winner else None))
    title = update.effective_chat.title or ""
    zone = await group_clock(context.runtime, audience.chat_id)
    text = group_leaderboard(
        audience.for_chat, audience.chat_id, title, boards, TOP, user_id, running, finished, zone
    )
    reply(context.application, update, text)


async def language(update: Update, context: BotContext) -> None:
    audience = context.audience
    if audience.in_group and not await context.speaks_for_group(update.effective_message):
        reply(
            context.application,
            update,
            audience.for_chat._("Only the group's admins can change its language."),
        )
        return
    if audience.in_group:
        prompt = audience.for_chat._("Choose the group's language:")
    else:
        prompt = audience.for_chat._("Choose your language:")
    reply(context.application, update, prompt, reply_markup=render.language_menu())


async def view(update: Update, context: BotContext) -> None:
    """Switch between the emoji grid and the numbers grid, then show the board that way."""
    audience = context.audience
    runtime = context.runtime
    new_view = await runtime.players.set_view(
        audience.chat_id,
        _user_id(update),
        audience.player.view.other,
        update_key(update),
    )
    t = audience.for_chat
    reply(
        context.application,
        update,
        render.view_notice(t, new_view) + " " + render.view_way_back(t, new_view),
    )
    stored = await runtime.games.current_or_start(audience.chat_id, _user_id(update))
    send_board(context.application, update, stored, t, new_view)


async def anonymous_player(update: Update, context: BotContext) -> None:
    """A command that needs a player, sent by an anonymous admin: Telegram hides who it is."""
    t = context.audience.for_chat
    reply(
        context.application,
        update,
        t._("Anonymous admins can't play: send the command from your own account to play."),
    )


async def unknown_command(update: Update, context: BotContext) -> None:
    t = context.audience.for_chat
    reply(context.application, update, t._("I don't know that command. /help lists what I can do."))


async def chatter(update: Update, context: BotContext) -> None:
    """Plain text in a private chat: point to the buttons instead of staying silent."""
    if update.effective_user is None or update.effective_message is None:
        return
    t = context.audience.for_chat
    reply(
        context.application,
        update,
        t._("Play with the arrow buttons under your board. /start shows it, /help lists commands."),
    )
