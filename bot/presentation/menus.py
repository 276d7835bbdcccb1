"""The command menus: what Telegram's menu and /help say of each command, per kind of chat.

Telegram shows each user the menu of the chat's kind in their app language. A command that
does nothing in private (a challenge) is left out of the private menu; one that does
something else in a group says so there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.presentation.i18n import Translator


@dataclass(frozen=True, slots=True)
class MenuLine:
    name: str
    describe: Callable[[Translator], str]
    # Where it does something: the private and the group menus list only those commands.
    in_private: bool = True
    # Its line in a group's menu, where it does something else than in private.
    describe_in_group: Callable[[Translator], str] | None = None


# In the order Telegram's menu and /help show them; bot/handlers/__init__.py runs them.
MENU: tuple[MenuLine, ...] = (
    MenuLine("start", lambda t: t._("Show your current game")),
    MenuLine("new", lambda t: t._("Start a new game (4×4, 5×5 or 6×6)")),
    MenuLine(
        "daily",
        lambda t: t._("Today's daily: the same tiles for everyone"),
        describe_in_group=lambda t: t._("Today's daily, played in private"),
    ),
    MenuLine("rules", lambda t: t._("How to play")),
    MenuLine("tips", lambda t: t._("Tips for a higher score")),
    MenuLine(
        "best",
        lambda t: t._("Your best scores and records"),
        describe_in_group=lambda t: t._("The group's best scores and challenges"),
    ),
    MenuLine(
        "stats",
        lambda t: t._("Your statistics and daily streaks"),
        describe_in_group=lambda t: t._("Your statistics: one line here, all of them in private"),
    ),
    MenuLine(
        "challenge",
        lambda t: t._("Challenge the group: same tiles for everyone"),
        in_private=False,
    ),
    MenuLine("share", lambda t: t._("A picture of your game to show off")),
    MenuLine("replay", lambda t: t._("Watch your last game as a video (your best: /replay best)")),
    MenuLine("record", lambda t: t._("Your last game's record, for anyone to check")),
    MenuLine("review", lambda t: t._("Your last finished game's costliest moves")),
    MenuLine("view", lambda t: t._("Switch between emoji and numbers")),
    MenuLine(
        "language",
        lambda t: t._("Choose your language"),
        describe_in_group=lambda t: t._("Choose the group's language (admins)"),
    ),
    MenuLine("help", lambda t: t._("List the commands")),
)


def menu(t: Translator, *, in_group: bool) -> list[tuple[str, str]]:
    """The command menu of private chats or of groups in one language: (command, line) pairs."""
    return [
        (
            line.name,
            (line.describe_in_group or line.describe)(t) if in_group else line.describe(t),
        )
        for line in MENU
        if in_group or line.in_private
    ]
