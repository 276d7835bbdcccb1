"""Slash commands. Each one: find the audience, call one service, reply."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import Update

from bot.handlers import challenges, groups, sharing
from bot.handlers.board_messages import send_board
from bot.handlers.bookkeeping import update_key
from bot.handlers.context import BotContext
from bot.handlers.replies import reply
from bot.presentation import render, texts
from bot.presentation.i18n import Translator
from bot.presentation.names import player_name
from bot.services.games import parse_size

Handler = Callable[[Update, BotContext], Awaitable[None]]


def _user_id(update: Update) -> int:
    assert update.effective_user is not None
    return update.effective_user.id


async def start(update: Update, context: BotContext) -> None:
    """Welcome and the current board; a deep link opens its challenge or duel instead.

    `inline` is where inline mode sends someone who has not started the bot yet.
    """
    audience = context.audience
    if context.args and not audience.in_group and context.args[0].startswith("d"):
        await sharing.join_duel(update, context, context.args[0])
        return
    if context.args and not audience.in_group and context.args[0] != "inline":
        await challenges.join(update, context, audience, context.args[0])
        return
    runtime = context.runtime
    assert update.effective_user is not None
    user = update.effective_user
    reply(
        context,
        update,
        texts.welcome(audience.for_chat, player_name(audience.for_chat, user.first_name, user.id)),
    )
    stored = await runtime.games.current_or_start(audience.chat_id, _user_id(update))
    send_board(context, update, stored, audience.for_chat, audience.player.view)


async def new(update: Update, context: BotContext) -> None:
    audience = context.audience
    runtime = context.runtime
    args = context.args or []
    size = parse_size(args[0]) if len(args) == 1 else None
    if size is None:
        reply(
            context,
            update,
            audience.for_chat._("Pick a board size:"),
            reply_markup=render.size_menu(audience.for_chat),
        )
        return
    stored = await runtime.games.start(audience.chat_id, _user_id(update), size, update_key(update))
    send_board(context, update, stored, audience.for_chat, audience.player.view)


async def rules(update: Update, context: BotContext) -> None:
    reply(context, update, texts.rules(context.audience.for_chat))


async def tips(update: Update, context: BotContext) -> None:
    reply(context, update, texts.tips(context.audience.for_chat))


async def help_command(update: Update, context: BotContext) -> None:
    audience = context.audience
    reply(
        context,
        update,
        texts.help_text(audience.for_chat, menu(audience.for_chat, in_group=audience.in_group)),
    )


async def best(update: Update, context: BotContext) -> None:
    """Personal records in private; the group's leaderboard in a group."""
    audience = context.audience
    if audience.in_group:
        await groups.leaderboard(update, context, audience)
        return
    records = await context.runtime.storage.records(_user_id(update))
    reply(context, update, render.records_text(audience.for_chat, records))


async def language(update: Update, context: BotContext) -> None:
    audience = context.audience
    if audience.in_group and not await groups.speaks_for_group(update, context):
        reply(
            context, update, audience.for_chat._("Only the group's admins can change its language.")
        )
        return
    if audience.in_group:
        prompt = audience.for_chat._("Choose the group's language:")
    else:
        prompt = audience.for_chat._("Choose your language:")
    reply(context, update, prompt, reply_markup=render.language_menu())


async def view(update: Update, context: BotContext) -> None:
    """Switch between the emoji grid and the numbers grid, then show the board that way."""
    audience = context.audience
    runtime = context.runtime
    new_view = await runtime.players.set_view(
        audience.chat_id,
        _user_id(update),
        render.other_view(audience.player.view),
        update_key(update),
    )
    t = audience.for_chat
    reply(context, update, render.view_notice(t, new_view) + " " + t._("/view switches back."))
    stored = await runtime.games.current_or_start(audience.chat_id, _user_id(update))
    send_board(context, update, stored, t, new_view)


async def anonymous_player(update: Update, context: BotContext) -> None:
    """A command that needs a player, sent by an anonymous admin: Telegram hides who it is."""
    t = context.audience.for_chat
    reply(
        context,
        update,
        t._("Anonymous admins can't play: send the command from your own account to play."),
    )


async def unknown_command(update: Update, context: BotContext) -> None:
    t = context.audience.for_chat
    reply(context, update, t._("I don't know that command. /help lists what I can do."))


async def chatter(update: Update, context: BotContext) -> None:
    """Plain text in a private chat: point to the buttons instead of staying silent."""
    if update.effective_user is None or update.effective_message is None:
        return
    t = context.audience.for_chat
    reply(
        context,
        update,
        t._("Play with the arrow buttons under your board. /start shows it, /help lists commands."),
    )


@dataclass(frozen=True, slots=True)
class Command:
    """A slash command: its handler and its line in Telegram's command menu and in /help."""

    name: str
    handler: Handler
    describe: Callable[[Translator], str]
    # Whether it needs to know who is playing: an anonymous admin cannot use it.
    plays: bool = False
    # Where it does something: the private and the group menus list only those commands.
    in_private: bool = True
    # Its line in a group's menu, where it does something else than in private.
    describe_in_group: Callable[[Translator], str] | None = None


# In the order Telegram's menu and /help show them.
COMMANDS: tuple[Command, ...] = (
    Command("start", start, lambda t: t._("Show your current game"), plays=True),
    Command("new", new, lambda t: t._("Start a new game (4×4, 5×5 or 6×6)"), plays=True),
    Command("rules", rules, lambda t: t._("How to play")),
    Command("tips", tips, lambda t: t._("Tips for a higher score")),
    Command(
        "best",
        best,
        lambda t: t._("Your best scores and records"),
        describe_in_group=lambda t: t._("The group's best scores and challenges"),
    ),
    Command(
        "challenge",
        challenges.challenge,
        lambda t: t._("Challenge the group: same tiles for everyone"),
        in_private=False,
    ),
    Command(
        "share", sharing.share, lambda t: t._("A picture of your game to show off"), plays=True
    ),
    Command(
        "replay", sharing.replay, lambda t: t._("Watch your game again (/replay best)"), plays=True
    ),
    Command("view", view, lambda t: t._("Switch between emoji and numbers"), plays=True),
    Command("language", language, lambda t: t._("Choose your language")),
    Command("help", help_command, lambda t: t._("List the commands")),
)


def menu(t: Translator, *, in_group: bool) -> list[tuple[str, str]]:
    """The command menu of private chats or of groups in one language: (command, line) pairs."""
    return [
        (
            command.name,
            (command.describe_in_group or command.describe)(t) if in_group else command.describe(t),
        )
        for command in COMMANDS
        if in_group or command.in_private
    ]
