"""What the bot shows of itself before anyone writes: command menus, descriptions, the menu
button. Every process sets them at every start, so each is set only where Telegram shows
something else."""

from __future__ import annotations

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    MenuButtonWebApp,
    WebAppInfo,
)
from telegram.ext import Application

from bot.presentation import texts
from bot.presentation.i18n import DEFAULT_LANGUAGE, LANGUAGES, translator
from bot.presentation.menus import menu


async def introduce(application: Application, miniapp_page: str | None) -> None:
    """Menus and descriptions in every language; the menu button when there is a Mini App."""
    await _set_command_menus(application)
    await _set_descriptions(application)
    if miniapp_page is not None:
        # The chat's menu button opens the Mini App on the player's game, in every private chat.
        button = MenuButtonWebApp("2048", WebAppInfo(miniapp_page))
        await application.bot.set_chat_menu_button(menu_button=button)


async def _set_command_menus(application: Application) -> None:
    """A private and a group menu per language, each listing only what works there.

    The default language's menus are also the ones for every language the bot does not speak.
    """
    scopes = ((False, BotCommandScopeAllPrivateChats()), (True, BotCommandScopeAllGroupChats()))
    for code in LANGUAGES:
        language_code = None if code == DEFAULT_LANGUAGE else code
        for in_group, scope in scopes:
            lines = menu(translator(code), in_group=in_group)
            commands = [BotCommand(name, text) for name, text in lines]
            await application.bot.set_my_commands(
                commands, scope=scope, language_code=language_code
            )


async def _set_descriptions(application: Application) -> None:
    """The bot's description (an empty chat's start screen) and short description (its
    profile), per language like the menus."""
    bot = application.bot
    for code in LANGUAGES:
        t = translator(code)
        language_code = None if code == DEFAULT_LANGUAGE else code
        wanted = texts.description(t)
        if (await bot.get_my_description(language_code)).description != wanted:
            await bot.set_my_description(wanted, language_code)
        wanted = texts.short_description(t)
        shown = await bot.get_my_short_description(language_code)
        if shown.short_description != wanted:
            await bot.set_my_short_description(wanted, language_code)
