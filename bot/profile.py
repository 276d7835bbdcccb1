"""What the bot shows of itself before anyone writes: command menus, descriptions, the menu
button. Every process sets them at every start, so each is set only where Telegram shows
something else.

None of it is needed to play, so none of it holds the start up: the lifecycle runs
`introduce` in the background once the bot serves, and every call is best effort. A flood
wait is waited out and a failure that may pass (the network, Telegram's servers) is tried
again after a pause that doubles, each wait said in one WARNING line; a refusal that will not
pass (a description Telegram finds too long) is said once, and the other calls go on. What
was given up on is tried again at the next start. A stop ends the waits at once, but lets a
call on its way finish rather than cut it off.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    MenuButtonWebApp,
    WebAppInfo,
)
from telegram.error import BadRequest, InvalidToken, NetworkError, RetryAfter, TelegramError
from telegram.ext import Application

from bot.presentation import texts
from bot.presentation.i18n import DEFAULT_LANGUAGE, LANGUAGES, translator
from bot.presentation.menus import menu
from bot.transport.budgets import retry_seconds

log = logging.getLogger(__name__)
# Tries of one call before it is given up on until the next start.
ATTEMPTS = 6
# The pause after a first failure, doubled after each next one up to LONGEST_PAUSE.
FIRST_PAUSE = 1.0
LONGEST_PAUSE = 60.0
Call = Callable[[], Awaitable[object]]


async def introduce(
    application: Application, miniapp_page: str | None, stopping: asyncio.Event
) -> None:
    """Menus and descriptions in every language; the menu button when there is a Mini App.

    Returns early, between two calls, once `stopping` is set.
    """
    bot = application.bot
    calls: list[tuple[str, Call]] = []
    scopes = (
        ("private", BotCommandScopeAllPrivateChats()),
        ("group", BotCommandScopeAllGroupChats()),
    )
    for code in LANGUAGES:
        for kind, scope in scopes:
            calls.append((f"the {kind} command menu ({code})", _command_menu(bot, code, scope)))
    for code in LANGUAGES:
        calls.append((f"the description ({code})", _description(bot, code)))
        calls.append((f"the short description ({code})", _short_description(bot, code)))
    if miniapp_page is not None:
        # The chat's menu button opens the Mini App on the player's game, in every private chat.
        button = MenuButtonWebApp("2048", WebAppInfo(miniapp_page))
        calls.append(("the menu button", lambda: bot.set_chat_menu_button(menu_button=button)))
    for what, call in calls:
        if stopping.is_set():
            return
        await best_effort(what, call, stopping)


async def best_effort(what: str, call: Call, stopping: asyncio.Event) -> bool:
    """Make `call` until it succeeds, waiting as the module's docstring says; True once made.

    A wait ends, and the call is given up on, as soon as `stopping` is set.
    """
    pause = FIRST_PAUSE
    attempt = 1
    while True:
        try:
            await call()
            return True
        except RetryAfter as error:
            wait = retry_seconds(error)
            reason = f"Telegram asks to wait {wait:g} s (flood control)"
        except BadRequest as error:  # before NetworkError, of which it is a kind
            log.warning("Telegram refused %s (%s); the bot goes on without it", what, error)
            return False
        except NetworkError as error:
            wait, pause = pause, min(pause * 2, LONGEST_PAUSE)
            reason = f"{error.__class__.__name__}: {error}"
        except InvalidToken:
            return False  # the process ends on it (bot/transport/telegram_health.py)
        except TelegramError as error:
            log.warning("Telegram refused %s (%s); the bot goes on without it", what, error)
            return False
        if attempt == ATTEMPTS:
            log.warning(
                "gave up setting %s after %d tries (%s); the next start tries again",
                what,
                ATTEMPTS,
                reason,
            )
            return False
        log.warning("setting %s: %s; trying again in %g s", what, reason, wait)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), wait)
        if stopping.is_set():
            return False
        attempt += 1


def _command_menu(bot: Bot, code: str, scope: BotCommandScope) -> Call:
    """A private or a group menu in one language, listing only what works there.

    The default language's menus are also the ones for every language the bot does not speak.
    """
    in_group = isinstance(scope, BotCommandScopeAllGroupChats)
    commands = [BotCommand(name, text) for name, text in menu(translator(code), in_group=in_group)]
    return lambda: bot.set_my_commands(commands, scope=scope, language_code=_language_code(code))


def _description(bot: Bot, code: str) -> Call:
    """The bot's description: what an empty chat's start screen shows."""
    wanted = texts.description(translator(code))
    language_code = _language_code(code)

    async def call() -> None:
        shown = await bot.get_my_description(language_code)
        if shown.description != wanted:
            await bot.set_my_description(wanted, language_code)

    return call


def _short_description(bot: Bot, code: str) -> Call:
    """The bot's short description: what its profile shows."""
    wanted = texts.short_description(translator(code))
    language_code = _language_code(code)

    async def call() -> None:
        shown = await bot.get_my_short_description(language_code)
        if shown.short_description != wanted:
            await bot.set_my_short_description(wanted, language_code)

    return call


def _language_code(code: str) -> str | None:
    """Telegram's language code for a language: none for the default one, which answers all."""
    return None if code == DEFAULT_LANGUAGE else code
