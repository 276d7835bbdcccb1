"""`python -m bot --playground`: try the bot in a browser, with no token and no Telegram.

One process runs the Bot API emulator (the one the end-to-end tests use), the real bot
Application pointed at it, and a small Telegram-like web page on the same port.
"""

from bot.playground.people import GROUP_ID, GROUP_TITLE, PLAYERS, Player
from bot.playground.server import Playground, PlaygroundError, open_playground, run_playground

__all__ = [
    "GROUP_ID",
    "GROUP_TITLE",
    "PLAYERS",
    "Player",
    "Playground",
    "PlaygroundError",
    "open_playground",
    "run_playground",
]
