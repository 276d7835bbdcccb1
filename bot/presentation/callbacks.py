"""The compact strings behind inline buttons, and their strict parsing.

Telegram echoes `callback_data` back verbatim, but a modified client can send anything, so
each handler is registered for the exact pattern built here (anything else goes to the
unknown-button handler), and each parser refuses, with ValueError, data its pattern rejects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import engine
from bot.models import Action
from bot.presentation.i18n import LANGUAGES

# A board button: an action on the game, asking for a hint, or switching between the emoji
# and the numbers view (neither changes the game).
GameAction = Action | Literal["hint", "view"]
# The game's own action letters (the replay alphabet), plus one each for hint and view.
_ACTION_CODES: dict[GameAction, str] = {**engine.ACTION_CODES, "hint": "h", "view": "v"}
_CODE_ACTIONS = {code: action for action, code in _ACTION_CODES.items()}

# `\Z`, not `$`: python-telegram-bot tests a pattern with re.match, and `$` also matches
# before a final newline, so "new\n" would reach a parser that refuses it.
GAME_PATTERN = rf"^g:[1-9]\d{{0,14}}:[{''.join(_CODE_ACTIONS)}]\Z"
NEW_PATTERN = rf"^new(:({'|'.join(map(str, engine.SIZES))}))?\Z"
LANGUAGE_PATTERN = rf"^lang:({'|'.join(LANGUAGES)})\Z"
CURRENT_PATTERN = r"^cur\Z"


@dataclass(frozen=True, slots=True)
class GameTap:
    game_id: int
    action: GameAction


def game_tap(game_id: int, action: GameAction) -> str:
    return f"g:{game_id}:{_ACTION_CODES[action]}"


def parse_game_tap(data: str | None) -> GameTap:
    if data is None or not re.fullmatch(GAME_PATTERN, data):
        raise ValueError(f"not a board button: {data!r}")
    _, game_id, code = data.split(":")
    return GameTap(int(game_id), _CODE_ACTIONS[code])


def new_game(size: int | None = None) -> str:
    return "new" if size is None else f"new:{size}"


def parse_new_game(data: str | None) -> int | None:
    """The chosen board size, or None for "show me the size menu"."""
    if data is None or not re.fullmatch(NEW_PATTERN, data):
        raise ValueError(f"not a new-game button: {data!r}")
    return int(data[4:]) if ":" in data else None


def language(code: str) -> str:
    return f"lang:{code}"


def parse_language(data: str | None) -> str:
    if data is None or not re.fullmatch(LANGUAGE_PATTERN, data):
        raise ValueError(f"not a language button: {data!r}")
    return data[5:]


CURRENT_BOARD = "cur"
